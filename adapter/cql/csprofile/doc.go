// Package csprofile is the cassandra-stress profile engine of the CQL
// adapter: the model of a profile's table (Profile: its columns, how many
// clustering rows each partition has, every value a function of column,
// partition and row through the profile's distributions), the statements a
// profile runs (the insert and load statements it builds, its queries and
// token-range scans, what each bind marker takes), and the plan of one
// operation (Gen: the rows an insert visits, how they are batched, the
// values bound, the routing key).
//
// It does not talk to a server: package cql creates the schema, prepares
// through its session (Prepare takes the metadata function) and sends what
// Gen fills, on the Apache driver's session or on platbench's own client.
// The profile itself (its types, its file, its distributions, its
// estimates) is package cstress's, declared once there.
package csprofile
