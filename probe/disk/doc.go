// Package disk is platbench's disk probe: fio-style timed tests (Test,
// Config; by default the IOTune suite, Suite: sequential 1 MiB write and
// read, random 4 KiB write and read) on a test file it creates and removes,
// with O_DIRECT and aligned buffers unless told otherwise. Its own engine
// submits the I/O: io_uring where the kernel has it, else the sync engine
// (pread/pwrite goroutines); Config.Engine chooses. Config.Throttle, an
// on/off window over the sync engine, exists to test the regulation
// detector where no kernel throttle is available.
//
// Run writes the same result format as every other run (one phase per
// test, recorded through package recorder), and Analyze gives each test
// the stall and regulation analysis of package analysis. It renders
// nothing: report.WriteDiskProbe does.
package disk
