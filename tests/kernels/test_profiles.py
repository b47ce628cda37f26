"""kernels/profiles.py: one list of profiles, the one the descriptor and the
result model share."""

from evidence import method
from kernels import descriptor, profiles


def test_the_descriptor_and_the_result_model_share_the_profiles():
    assert descriptor.PROFILES is profiles.PROFILES is method.PROFILES
    assert profiles.PROFILES == ("tiny", "quick", "full", "compare")
