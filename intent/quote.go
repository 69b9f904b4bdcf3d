package intent

import (
	"time"

	"github.com/shopspring/decimal"
)

// NewQuote is what a quote stores when it is made (POST /quote/v2, POST /quote): the request
// row (status waiting) and its order. It lives in the domain so that the quote engine hands it
// to its store through an interface, without importing the store.
type NewQuote struct {
	Record    Record
	OrderID   string
	OrderData OrderData
	Execution Execution // what the quote commits the engine to, handed to the workflow
	APIKeyID  string
	ExpiresAt time.Time
	Origin    uint64
	Dest      uint64
	VolumeUSD decimal.Decimal // the input's USD value, counted in the key's trailing volume
}
