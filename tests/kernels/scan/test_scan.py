"""The package kernels/scan/: one name space over versions.py, plus DESCRIPTOR."""

import kernels.scan as package
from kernels.scan import describe, versions


def test_the_package_shows_every_name_of_its_versions():
    assert package.launch_config is versions.launch_config
    assert package.scan_v1_kernel is versions.scan_v1_kernel
    assert package.DESCRIPTOR is describe.DESCRIPTOR


def test_an_unknown_name_is_an_attribute_error():
    try:
        package.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name resolved")
