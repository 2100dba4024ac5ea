"""Skybridge's fast paths against their references: the seed variant's bit-mask legal
generation (``_seed_bits``) against ``_seat_actions``, and the incrementally kept tower bit
masks against a fresh rebuild from the position text."""

import numpy as np
import pytest

import sky_envs.games.skybridge.state as state_module
from sky_envs.games.skybridge.game import SkybridgeGame


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", ["seed", "classic"])
@pytest.mark.parametrize("rows,cols", [(3, 3), (2, 4)])
def test_fast_masks_and_bit_tables_match_references(players, variant, rows, cols):
    game = SkybridgeGame(players=players, rows=rows, cols=cols, variant=variant)
    rng = np.random.default_rng(players * 10 + rows)
    for _ in range(15):
        s = game.new_initial_state(np.random.default_rng(0))
        while True:
            fresh = game.state_from_text(s.to_text())
            for name in ("_lv", "_cb", "_blocks", "_openbits", "heights", "top_colour", "top_kind"):
                assert getattr(s, name) == getattr(fresh, name), name
            np.testing.assert_array_equal(s.features, fresh.features)
            np.testing.assert_array_equal(s.obs_matrix, fresh.obs_matrix)
            levels = sorted(s._lv)
            for seat in range(players):
                ref = s._seat_actions(seat)
                if variant == "seed":
                    bits = s._seed_bits(seat, levels)
                    assert bits == sum(1 << a for a in set(ref))
            if s.current_player < 0:
                break
            mask = s.legal_mask()
            assert not mask.flags.writeable
            assert set(np.flatnonzero(mask).tolist()) == set(s._seat_actions(s.current_player))
            legal = np.flatnonzero(mask)
            s.apply(int(legal[rng.integers(len(legal))]))


def test_mask_from_bits():
    for bits in (0, 1, 1 << 77, (1 << 78) - 1, 0b1011 << 30, *np.random.default_rng(0).integers(0, 2**62, 20).tolist()):
        mask = state_module.mask_from_bits(bits, 78)
        assert mask.dtype == bool and mask.shape == (78,) and not mask.flags.writeable
        assert [a for a in range(78) if bits >> a & 1] == np.flatnonzero(mask).tolist()
        with pytest.raises(ValueError):
            mask.flags.writeable = True
