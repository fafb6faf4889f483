"""engine/seeding.py: the scalar and the vectorized splitmix64 agree, and the derived
seeds are those of the code the project shipped before (pinned values)."""

import numpy as np
import pytest

from uno_env.engine.seeding import check_seed, hash_seed, seed_to_rng, seeds_to_rng, splitmix64, splitmix64_int


def test_the_scalar_and_the_array_form_agree():
    values = np.random.default_rng(0).integers(0, 2**64, 2000, dtype=np.uint64)
    values[:3] = [0, 1, 2**64 - 1]
    assert [splitmix64_int(int(v)) for v in values] == [int(x) for x in splitmix64(values)]


@pytest.mark.parametrize("seed", [0, 1, 7, 2**63 - 1, 2**64 - 3, np.int64(9), np.uint64(2**64 - 3)])
def test_seed_to_rng_is_the_first_of_seeds_to_rng(seed):
    assert seed_to_rng(seed) == seeds_to_rng(seed, 3)[0] != 0
    assert isinstance(seed_to_rng(seed), np.uint64)


@pytest.mark.parametrize("seed", [True, np.bool_(False), 1.0, "1", None, np.float64(3)])
def test_a_seed_must_be_an_integer(seed):
    with pytest.raises(ValueError, match="a seed must be an integer"):
        seed_to_rng(seed)


@pytest.mark.parametrize("seed", [-1, -(2**63), 2**64, 2**70 + 5, np.int64(-7)])
def test_a_seed_outside_0_to_2_64_is_refused_not_wrapped(seed):
    with pytest.raises(ValueError, match=r"0\.\.2\*\*64 - 1, got " + str(int(seed))):
        seed_to_rng(seed)
    with pytest.raises(ValueError, match=str(int(seed))):
        check_seed(seed)


def test_seeds_of_a_batch_must_all_be_seeds():
    assert len(seeds_to_rng(2**64 - 3, 3)) == 3
    with pytest.raises(ValueError, match="beyond the largest seed"):
        seeds_to_rng(2**64 - 3, 4)


def test_derived_seeds_are_pinned():
    assert hash_seed(1, 2, 3) == 7405809139744024400
    assert hash_seed() == 1305961721744163945
    assert hash_seed(-5, 2**70, 9) == 2668762045027143852
    assert int(seed_to_rng(0)) == 16294208416658607535
    assert int(seed_to_rng(2**64 - 1)) == 16490336266968443936  # what -1 played when seeds wrapped
