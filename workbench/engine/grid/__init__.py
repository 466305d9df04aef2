"""Grid scheduling of seed 004: sites, workloads (modifications, the Lublin-Feitelson model), strategies."""
