package records

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Compiled is a Query as SQL: Page selects one page (Limit+1 rows, so the caller knows whether
// there is a next one) and Count counts every match. Each row of Page is: the stored record,
// the request id, the owning integrator's id ("" for a request quoted without a key), the
// status, the order (NULL unless WithOrderData) and the sort value (a timestamptz, or numeric text for SortAmountUSD).
type Compiled struct {
	Page, Count string
	PageArgs    []any
	CountArgs   []any
	SortIsTime  bool
}

// columns of a simple key: the SQL expression its values are compared with.
var columns = map[Key]string{
	KeyID: "r.id", KeyOrderID: "r.order_id", KeyUser: `lower(r."user")`, KeyRecipient: "lower(r.recipient)",
	KeyDepositAddress: "lower(r.deposit_address)", KeyOriginChainID: "r.origin_chain_id",
	KeyDestinationChainID: "r.destination_chain_id", KeyStatus: "r.status", KeyFailReason: "r.fail_reason",
	KeyRefundFailReason: "r.refund_fail_reason", KeyReferrer: "r.referrer", KeyRequestType: "r.request_type",
	KeyCurrencyInChainID: "r.currency_in_chain_id", KeyCurrencyInAddress: "r.currency_in_address",
	KeyCurrencyInSymbol: "r.currency_in_symbol", KeyCurrencyOutChainID: "r.currency_out_chain_id",
	KeyCurrencyOutAddress: "r.currency_out_address", KeyCurrencyOutSymbol: "r.currency_out_symbol",
}

// txKinds are the transaction kinds a hash key searches.
var txKinds = map[Key]string{
	KeyDepositTxHash: "t.kind = 'deposit'",
	KeyFillTxHash:    "t.kind = 'fill'",
	KeyRefundTxHash:  "t.kind IN ('refund', 'manual_refund')",
	KeyTxHash:        "true",
}

// sortColumns are the columns a page is ordered by.
var sortColumns = map[SortField]string{SortCreatedAt: "r.created_at", SortUpdatedAt: "r.updated_at", SortAmountUSD: "r.volume_usd"}

// builder collects the parameters of one statement.
type builder struct{ args []any }

func (b *builder) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

// Compile builds the statements of q, which must be valid (Validate).
func Compile(q Query) Compiled {
	var b builder
	where := filtersSQL(q, &b)
	countArgs := append([]any(nil), b.args...)
	count := "SELECT count(*) FROM requests r WHERE " + where
	col := sortColumns[q.Sort]
	dir, cmp := "ASC", ">"
	if q.Desc {
		dir, cmp = "DESC", "<"
	}
	pageWhere := where
	if q.After != nil {
		cast := "::timestamptz"
		if q.Sort == SortAmountUSD {
			cast = "::numeric"
		}
		pageWhere += fmt.Sprintf(" AND (%s, r.id) %s (%s%s, %s)", col, cmp, b.arg(q.After.Value), cast, b.arg(q.After.ID))
	}
	sortValue := col
	if q.Sort == SortAmountUSD {
		sortValue = col + "::text"
	}
	order, orderJoin := "NULL::jsonb", ""
	if q.WithOrderData {
		order, orderJoin = "qo.order_data", " LEFT JOIN quotes qo ON qo.request_id = r.id"
	}
	page := fmt.Sprintf(`SELECT r.record, r.id, coalesce(k.integrator_id::text, ''), r.status, %s, %s FROM requests r
		LEFT JOIN api_keys k ON k.id = r.api_key_id%s WHERE %s ORDER BY %s %s, r.id %s LIMIT %s`,
		order, sortValue, orderJoin, pageWhere, col, dir, dir, b.arg(q.Limit+1))
	return Compiled{Page: page, Count: count, PageArgs: b.args, CountArgs: countArgs, SortIsTime: q.Sort != SortAmountUSD}
}

// filtersSQL is the WHERE clause of q (without the keyset position).
func filtersSQL(q Query, b *builder) string {
	parts := []string{}
	for _, c := range q.Conds {
		parts = append(parts, condSQL(c, q.IncludeChildren, b))
	}
	if len(q.Groups) > 0 {
		ors := make([]string, 0, len(q.Groups))
		for _, g := range q.Groups {
			ands := make([]string, 0, len(g))
			for _, c := range g {
				ands = append(ands, condSQL(c, q.IncludeChildren, b))
			}
			ors = append(ors, "("+strings.Join(ands, " AND ")+")")
		}
		parts = append(parts, "("+strings.Join(ors, " OR ")+")")
	}
	switch len(q.APIKeyIDs) {
	case 0:
	case 1:
		parts = append(parts, "r.api_key_id = "+b.arg(q.APIKeyIDs[0])+"::uuid")
	default:
		parts = append(parts, "r.api_key_id = ANY("+b.arg(q.APIKeyIDs)+"::uuid[])")
	}
	timeCol := "r.created_at"
	if q.TimesAreUpdates {
		timeCol = "r.updated_at"
	}
	if q.CreatedFrom != nil {
		parts = append(parts, timeCol+" >= "+b.arg(*q.CreatedFrom))
	}
	if q.CreatedTo != nil { // inclusive of its whole second
		parts = append(parts, timeCol+" < "+b.arg(q.CreatedTo.Truncate(time.Second).Add(time.Second)))
	}
	if q.BlockFrom != nil || q.BlockTo != nil {
		var bounds []string
		if q.BlockFrom != nil {
			bounds = append(bounds, "t.block_number >= "+b.arg(int64(*q.BlockFrom)))
		}
		if q.BlockTo != nil {
			bounds = append(bounds, "t.block_number <= "+b.arg(int64(*q.BlockTo)))
		}
		parts = append(parts, "r.id IN (SELECT t.request_id FROM request_transactions t WHERE t.kind = 'deposit' AND "+
			strings.Join(bounds, " AND ")+")")
	}
	if q.AmountUSDMin != nil {
		parts = append(parts, "r.volume_usd >= "+b.arg(q.AmountUSDMin.String())+"::numeric")
	}
	if q.AmountUSDMax != nil {
		parts = append(parts, "r.volume_usd <= "+b.arg(q.AmountUSDMax.String())+"::numeric")
	}
	if len(q.Features) > 0 {
		parts = append(parts, "r.record -> 'features' ?| "+b.arg(q.Features)+"::text[]")
	}
	if q.NonTerminalVisibleTo != nil {
		owner := "false"
		if *q.NonTerminalVisibleTo != "" {
			owner = "r.api_key_id IN (SELECT k2.id FROM api_keys k2 WHERE k2.integrator_id = " + b.arg(*q.NonTerminalVisibleTo) + "::uuid)"
		}
		parts = append(parts, "(r.status IN ('success', 'failure', 'refund') OR "+owner+")")
	}
	if len(parts) == 0 {
		return "true"
	}
	return strings.Join(parts, " AND ")
}

// condSQL is one condition: the positive test, negated when c.Not. A negated value test also
// matches a request whose field is empty.
func condSQL(c Cond, children bool, b *builder) string {
	if c.Null {
		s := nullSQL(c.Key)
		if c.Not {
			return "NOT (" + s + ")"
		}
		return s
	}
	s := valueSQL(c.Key, c.Values, children, b)
	if c.Not {
		return "(" + s + ") IS NOT TRUE"
	}
	return s
}

// valueSQL tests that key is one of values.
func valueSQL(key Key, values []string, children bool, b *builder) string {
	// One value is compared with =, so that an index on the column also gives the page its
	// order (an index scan with = ANY cannot); several with = ANY.
	var p string
	eq := "= ANY(%s)"
	switch {
	case keyKinds[key] == kindChain && len(values) == 1:
		n, _ := strconv.ParseInt(values[0], 10, 64) // normalised by NormalizeValue
		p, eq = b.arg(n), "= %s"
	case keyKinds[key] == kindChain:
		ids := make([]int64, len(values))
		for i, v := range values {
			ids[i], _ = strconv.ParseInt(v, 10, 64)
		}
		p = b.arg(ids)
	case len(values) == 1:
		p, eq = b.arg(values[0]), "= %s"
	default:
		p = b.arg(values)
	}
	in := func(col string) string { return col + " " + fmt.Sprintf(eq, p) }
	// folded tests a column whose EVM values match in any case, lower(col) against the values
	// (NormalizeValue lower-cases hex). A base58 value (a Solana address or signature, which
	// NormalizeValue keeps as written; never 0x-prefixed) must match exactly: lower(col), which
	// the indexes hold, is compared with the values lower-cased, and a column that is not hex must
	// then equal one of them as written.
	folded := func(col string) string {
		if !anyBase58(values) {
			return in("lower(" + col + ")")
		}
		lowered := make([]string, len(values))
		for i, v := range values {
			lowered[i] = strings.ToLower(v)
		}
		return "(lower(" + col + ") = ANY(" + b.arg(lowered) + ") AND (left(" + col + ", 2) = '0x' OR " + in(col) + "))"
	}
	switch key {
	case KeyChainID:
		return "(" + in("r.origin_chain_id") + " OR " + in("r.destination_chain_id") + ")"
	case KeyUser, KeyRecipient, KeyDepositAddress:
		return folded(foldedColumns[key])
	case KeyV2User:
		return "(" + folded(`r."user"`) + " OR " + folded("r.recipient") + ")"
	case KeyDepositTxHash, KeyFillTxHash, KeyRefundTxHash, KeyTxHash:
		return "r.id IN (SELECT t.request_id FROM request_transactions t WHERE " + txKinds[key] + " AND " +
			folded("t.tx_hash") + ")"
	case KeyTerm:
		return "(" + in("r.id") + " OR " + folded(`r."user"`) + " OR " + folded("r.recipient") + " OR " +
			folded("r.deposit_address") + " OR r.id IN (SELECT t.request_id FROM request_transactions t WHERE " +
			folded("t.tx_hash") + "))"
	case KeyID:
		if children {
			return "(" + in("r.id") + " OR " + in("r.parent_request_id") + ")"
		}
	}
	return in(columns[key])
}

// foldedColumns are the columns of keys compared as folded does: the stored value as written,
// its lower case the one an index holds.
var foldedColumns = map[Key]string{KeyUser: `r."user"`, KeyRecipient: "r.recipient", KeyDepositAddress: "r.deposit_address"}

// anyBase58 reports whether a normalized value is not 0x-hex: a base58 address or signature.
func anyBase58(values []string) bool {
	for _, v := range values {
		if !strings.HasPrefix(v, "0x") {
			return true
		}
	}
	return false
}

// nullSQL tests that key is empty: no value, no transaction of the kind, or (fail reasons) N/A.
func nullSQL(key Key) string {
	switch key {
	case KeyChainID:
		return "(r.origin_chain_id IS NULL AND r.destination_chain_id IS NULL)"
	case KeyFailReason, KeyRefundFailReason:
		return columns[key] + " = 'N/A'"
	case KeyDepositTxHash, KeyFillTxHash, KeyRefundTxHash, KeyTxHash:
		return "NOT EXISTS (SELECT 1 FROM request_transactions t WHERE t.request_id = r.id AND " + txKinds[key] + ")"
	case KeyReferrer, KeyRequestType, KeyDepositAddress:
		return "coalesce(" + columns[key] + ", '') = ''"
	}
	return columns[key] + " IS NULL"
}
