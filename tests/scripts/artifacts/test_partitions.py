"""scripts/artifacts/partitions.py: the regions of a warp-specialised loop
read from Triton's GPU IR, on a cut-down IR text."""

from scripts.artifacts.partitions import partitions

SMEM = "!ttg.memdesc<128x128xbf16, #shared1, #smem, mutable>"
TMEM = "!ttg.memdesc<128x128xbf16, #tmem, #ttng.tensor_memory, mutable>"
ACC = "!ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>"
IR = f"""
    %x = ttng.tc_gen5_mma %a, %b, %c : {SMEM}, {SMEM}, {ACC}
    %qk:5 = ttg.warp_specialize(%a) attributes {{requestedRegisters = array<i32>}}
    default {{
      %e = math.exp2 %s : tensor<128x128xf32>
      ttg.warp_yield %e : tensor<128x128xf32>
    }}
    partition0(%arg0: i32) num_warps(1) {{
      ttng.tc_gen5_mma %q, %k, %c, %false : {SMEM}, {SMEM}, {ACC}
      ttng.tc_gen5_mma %p, %v, %o, %true : {TMEM}, {SMEM}, {ACC}
      %d = tt.dot %r, %s, %t : tensor<16x16xf16> * tensor<16x16xf16>
      ttg.warp_return
    }}
    partition1(%arg0: i32) num_warps(2) {{
      ttng.async_tma_copy_global_to_local %d[%i] %buf, %bar : !tt.tensordesc
      ttg.warp_return
    }}
"""


def test_each_region_says_what_it_issues_and_where_a_product_reads_a():
    assert partitions(IR) == [
        {"name": "default", "warps": None, "products_a": [], "exp": 1, "tma_copies": 0},
        {
            "name": "partition0",
            "warps": 1,
            "products_a": ["shared", "tensor", "registers"],
            "exp": 0,
            "tma_copies": 0,
        },
        {"name": "partition1", "warps": 2, "products_a": [], "exp": 0, "tma_copies": 1},
    ]


def test_a_loop_that_is_not_specialised_has_no_regions():
    # The product outside any region above is not counted, and a plain
    # kernel's IR gives nothing at all.
    assert partitions(IR.split("%qk:5")[0]) == []
