// Package records answers the searches of the request records: GET /requests/v3 and, until its
// sunset, GET /requests/v2. It holds what a search is (Query: conditions, the `filters`
// language's groups, ranges, sort, keyset continuation), parses the `filters` language, compiles
// a Query to SQL text whose every value is a numbered parameter (never spliced into the text),
// and turns a stored record into what a caller may see. It knows neither HTTP nor the database
// driver: the API parses what a client sent into a Query, the store runs what Compile builds.
package records

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Limits of a search.
const (
	DefaultLimit = 20
	MaxLimit     = 50
	// MaxAPIKeys is the most distinct keys (apiKey and apiKeyId together) one search may name.
	MaxAPIKeys = 50
)

// Cond is one condition on a record field: the field is one of Values (an OR), or, with Null,
// empty; Not negates it (a record whose field is empty matches a negated value condition).
type Cond struct {
	Key    Key
	Not    bool
	Null   bool
	Values []string // normalised by the key's kind (lower-case addresses and hashes, numbers)
}

// Group is conditions that must all hold; a search's groups are alternatives (OR).
type Group []Cond

// SortField is what a page is ordered by (then by id, in the same direction).
type SortField string

// The sort fields of GET /requests/v3 (v2 has the first two).
const (
	SortCreatedAt SortField = "createdAt"
	SortUpdatedAt SortField = "updatedAt"
	SortAmountUSD SortField = "amountUsd"
)

// Query is one search of the request records.
type Query struct {
	// Conds must all hold (top-level parameters); Groups, when any, are ORed and the result
	// ANDed with Conds (the `filters` parameter).
	Conds  []Cond
	Groups []Group
	// APIKeyIDs, when any, keep the requests quoted with one of these keys (UUIDs, already
	// checked to be the caller's).
	APIKeyIDs []string
	// Ranges, inclusive; nil is open. CreatedFrom and CreatedTo bound the update time instead
	// when TimesAreUpdates (a search sorted by it), and CreatedTo includes its whole second.
	CreatedFrom, CreatedTo *time.Time
	TimesAreUpdates        bool
	BlockFrom, BlockTo     *uint64 // the origin deposit's block
	AmountUSDMin           *decimal.Decimal
	AmountUSDMax           *decimal.Decimal
	// Features keeps requests with at least one of these features.
	Features []string
	// IncludeChildren also returns the children (refund requests of duplicate deposits) of the
	// requests an id condition names.
	IncludeChildren bool
	// NonTerminalVisibleTo, when non-nil, hides requests that are not in a final state unless
	// they were quoted with a key of this integrator (v2's visibility rule for its chain
	// filters); "" hides every request not in a final state.
	NonTerminalVisibleTo *string
	// WithOrderData also reads each request's order (v2's includeOrderData).
	WithOrderData bool

	Sort  SortField
	Desc  bool
	Limit int
	After *Cursor // the page starts after this position; nil: the first page
	// Total asks for the exact count of every match, independent of Limit and After.
	Total bool
}

// Validate checks what the parsers cannot: the limit and the ranges.
func (q *Query) Validate() error {
	switch {
	case q.Limit < 1 || q.Limit > MaxLimit:
		return fmt.Errorf("limit must be from 1 to %d", MaxLimit)
	case q.CreatedFrom != nil && q.CreatedTo != nil && q.CreatedFrom.After(*q.CreatedTo):
		return fmt.Errorf("startTimestamp is after endTimestamp")
	case q.BlockFrom != nil && q.BlockTo != nil && *q.BlockFrom > *q.BlockTo:
		return fmt.Errorf("startBlock is after endBlock")
	case q.AmountUSDMin != nil && q.AmountUSDMax != nil && q.AmountUSDMin.GreaterThan(*q.AmountUSDMax):
		return fmt.Errorf("amountUsdMin is above amountUsdMax")
	case q.After != nil && (q.After.Sort != q.Sort || q.After.Desc != q.Desc):
		return fmt.Errorf("continuation belongs to another sort order")
	}
	switch q.Sort {
	case SortCreatedAt, SortUpdatedAt, SortAmountUSD:
	default:
		return fmt.Errorf("sortBy must be createdAt, updatedAt or amountUsd")
	}
	return nil
}
