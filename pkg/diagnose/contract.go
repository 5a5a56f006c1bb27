package diagnose

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
