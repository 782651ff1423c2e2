"""blecap-fleet: blecap's batch mode fanned out over Ray, its rows kept as Parquet.

The pipeline is deliberately thin. blecap decides every value; this package lists captures,
groups them into batches, runs `blecap … --files-from - --format fleet` on Ray workers, and writes
each batch's rows as one Parquet file per table, partitioned by day and source. A batch's
`manifest` file is written last and is the commit: a capture whose content hash and blecap version
are in the manifest is not analysed again, and files of a batch without a manifest (a run killed
half way) are removed before the next run writes anything.
"""

__version__ = "0.1.0"
