package records

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/shopspring/decimal"
)

// Cursor is a position in a sorted search: the sort value and id of the last request of a
// page. It is handed to clients as an opaque string (Encode) and names its sort, so a cursor
// cannot continue a search in another order.
type Cursor struct {
	Sort  SortField `json:"s"`
	Desc  bool      `json:"d"`
	Value string    `json:"v"` // the sort column's value: RFC 3339 time or a decimal
	ID    string    `json:"i"`
}

// Encode is the cursor as the continuation string of a response.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(c) // strings and a bool: it always marshals
	return base64.RawURLEncoding.EncodeToString(b)
}

// errBadContinuation is every malformed continuation: it says nothing about the format.
var errBadContinuation = errors.New("continuation is not one this API returned")

// DecodeCursor reads a continuation string.
func DecodeCursor(s string) (*Cursor, error) {
	if len(s) > 512 {
		return nil, errBadContinuation
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, errBadContinuation
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil || !validHash(c.ID) {
		return nil, errBadContinuation
	}
	switch c.Sort {
	case SortCreatedAt, SortUpdatedAt:
		if _, err := time.Parse(time.RFC3339Nano, c.Value); err != nil {
			return nil, errBadContinuation
		}
	case SortAmountUSD:
		if _, err := decimal.NewFromString(c.Value); err != nil {
			return nil, errBadContinuation
		}
	default:
		return nil, errBadContinuation
	}
	return &c, nil
}

func validHash(s string) bool {
	_, err := NormalizeValue(KeyID, s)
	return err == nil
}
