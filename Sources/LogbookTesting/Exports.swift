// The seeded generators and workloads moved to LogbookWorkloads so the installed binary
// does not link the test support; tests and the Benchmarks package keep getting them here.
@_exported import LogbookWorkloads
