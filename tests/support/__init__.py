"""What the tests share: brute-force references, schedule validity, the plain backfilling reference
and the hypothesis strategies that make random environments."""
