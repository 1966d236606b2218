"""profkit-fleet: merge tens of thousands of profiles on a Dask cluster.

The work is split into shards of consecutive inputs; each Dask worker runs `profkit merge`
on one shard (raw profiles in, one indexed profile out), and the partial profiles are merged
again in a tree, keeping input order at every level, by the same `profkit merge`. Since a
merge of merges equals one merge of all inputs (counts add, value-profile ties are ordered
the same way whatever the grouping), the result is byte-identical to a single local
`profkit merge` of the whole list. See docs/fleet.md.
"""

__all__ = ["main"]

from profkit_fleet.cli import main  # noqa: E402
