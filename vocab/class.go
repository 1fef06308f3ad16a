package vocab

// Class is the class of an error returned by a target's worker. Classes keep
// per-interval error counts bounded (errors by class, not by message).
type Class uint8

// Error classes, after franz-go's kerr and the drivers' exception types.
const (
	ClassNone        Class = iota
	ClassTimeout           // request or read timeout
	ClassUnavailable       // not enough replicas/members, connection refused, broker down
	ClassOverloaded        // server shed load (Overloaded, throttled, busy)
	ClassRejected          // auth, permission, invalid request, unknown keyspace/topic
	ClassNotFound          // key absent where the workload expected it
	ClassOther             // anything else
	// ClassValidationMissing: a checked read (workload validate) found no
	// record for a key the dataset must have.
	ClassValidationMissing
	// ClassValidationCorrupt: a checked read returned a value that is not
	// what platbench wrote for its key (workload.CheckRecord).
	ClassValidationCorrupt
	NumClasses
)

var classNames = [NumClasses]string{"none", "timeout", "unavailable", "overloaded", "rejected", "not_found", "other", "validation_missing", "validation_corrupt"}

// String is the class's name in result files and reports ("timeout").
func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return "other"
}
