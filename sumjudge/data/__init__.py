"""Dataset stage: fetch pinned upstream files and prepare one tidy Parquet per dataset."""
