// Package loadtest holds the load and fault tests of `raymond serve`: they
// build the raymond binary and the fake claude, start the daemon as a real
// subprocess on a loopback port, and drive it through its HTTP API the way
// a page or a script would. It has no code of its own, only tests and
// benchmarks:
//
//   - BenchmarkServeLoad: 100 runs of a 10-worker workflow at once, 50
//     clients following their event streams and reconnecting, a sampler
//     timing the listing routes; peak RSS and latencies are reported.
//   - BenchmarkServeKill9: kill -9 of the daemon at random moments, restart,
//     every run completes with its uninterrupted result and no paid step
//     runs twice beyond those in flight at the kill.
//   - TestServeKill9Recovers: one such kill and restart, on every test run.
//   - TestServeHeldConnections: 300 idle connections held against a daemon
//     under ulimit -n 256 while runs are in flight; every run completes.
//   - TestServeOutlivesItsStderr: a daemon whose stderr pipe closed stops
//     cleanly at SIGTERM instead of dying of SIGPIPE.
package loadtest
