package intent

import "github.com/shopspring/decimal"

// ExposureHold is a deposit's share of its origin chain's exposure: the USD the engine fills
// against it while it is not final (docs/operations.md, "Confirmations by value and the exposure
// cap"). It counts from its reservation until the chain's head reaches FinalBlock, the block at
// which the deposit, seen in DepositBlock, has the chain's full confirmations.
type ExposureHold struct {
	RequestID    string
	ChainID      uint64
	USD          decimal.Decimal
	DepositBlock uint64
	FinalBlock   uint64
}

// ExposureAsk asks for a hold while the chain's head is Head, under the chain's cap.
type ExposureAsk struct {
	ExposureHold
	Head uint64
	Cap  decimal.Decimal
}

// ExposureAnswer is what a reservation decided: whether the request holds its share (now, or
// from an earlier ask), the chain's exposure counted, and NextFinal, the lowest final block of
// the holds counted: the block at which the exposure next drops by itself (0 when none counts).
type ExposureAnswer struct {
	Reserved  bool
	Exposure  decimal.Decimal
	NextFinal uint64
}
