package diagnose

import "errors"

// ContractError is an answer that broke the List or the Watch contract,
// which every API server keeps (items or events the request excluded, an
// item newer than its list, pages at different RVs, changes out of RV
// order, a count no count can be): something else answered, and nothing
// it says of the collection can be trusted. It is a failure of its own
// (exit 1), never a verdict drawn from the answer (adversary and user
// tries 19 and 20).
type ContractError struct {
	// Contract is "List" or "Watch".
	Contract string
	// Breach says how the answer broke it, in the plugin's words.
	Breach string
}

func (e *ContractError) Error() string {
	return "this API server broke the " + e.Contract + " contract: " + e.Breach
}

// FailureClass: no HTTP status names it.
func (e *ContractError) FailureClass() Failure { return FailureOther }

// BrokeContract: err is an answer that broke the List or Watch contract:
// a *ContractError, or an error that says it is one (ContractBreach: the
// RVs of a probe's answers that went back). The one test of a breach:
// a run over several targets counts it apart and exits 1 for it, as a
// one-target run does (adversary try 38 F1: a probe --all row whose RVs
// went back was "could not be measured").
func BrokeContract(err error) bool {
	var broke *ContractError
	if errors.As(err, &broke) {
		return true
	}
	var breach interface{ ContractBreach() bool }
	return errors.As(err, &breach) && breach.ContractBreach()
}
