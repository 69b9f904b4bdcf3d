package intent

// Funding is how a request's money reaches the engine: the family of the chain it arrives on
// and the strategy within that family. It is data in the request's execution, fixed at quote
// time, so that the workflow and its activities take the family from it rather than branch on
// it: a new way for money to arrive is a new strategy of a family (docs/chains.md), not a new
// path through the lifecycle.
type Funding struct {
	// Family is the origin chain's family, its VM type ("evm").
	Family string `json:"family"`
	// Strategy is how the family's funding port finds the deposit (FundingDepository).
	Strategy FundingStrategy `json:"strategy"`
}

// FundingStrategy names one way money arrives within a family.
type FundingStrategy string

// FundingDepository: the user calls the origin chain's depository with the order id, and the
// family finds the depository's event (the only strategy today).
const FundingDepository FundingStrategy = "depository"

// FundingOf is the request's funding: as quoted, or, for an execution stored before the
// funding was part of it, the EVM depository (the only funding there was then).
func (e Execution) FundingOf() Funding {
	if e.Funding.Family == "" {
		return Funding{Family: "evm", Strategy: FundingDepository}
	}
	return e.Funding
}
