// Package vocab is the vocabulary every stage of platbench shares: the
// operation kinds and their names (Op, Mix), the classes of errors (Class)
// and what a run measured (Info). It sits at the bottom of the tree and
// imports nothing of ours, so that the result file (package result) and the
// recorder need nothing above it: a change to the adapter interface or to
// the workload generators does not ripple into the file format.
//
// It does not parse workloads (package workload), classify driver errors
// (package adapter and its adapters) or time anything (package runner).
package vocab
