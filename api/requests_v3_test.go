package api

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/google/uuid"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// seedReq is a request row the search tests write straight into the read model.
type seedReq struct {
	id, user, recipient string
	origin, dest        uint64
	status              intent.Status
	fail                intent.FailReason
	key                 *usageKey
	created             time.Time
	usd                 string
	referrer            string
	symbolIn, symbolOut string
	deposit, fill       string // transaction hashes
	refund              string
	currencyIn          string // the input currency's address; default the zero address
	platformFee         bool
}

var seedN struct {
	sync.Mutex
	n int
}

// hashN is a distinct 32-byte hash for tests.
func hashN(prefix byte) string {
	seedN.Lock()
	defer seedN.Unlock()
	seedN.n++
	return fmt.Sprintf("0x%02x%062x", prefix, seedN.n)
}

func addrN(i int) string { return intent.ChecksumAddress(fmt.Sprintf("0x%040x", 0xa0000+i)) }

func seedRequest(t testing.TB, st *store.Store, r seedReq) string {
	t.Helper()
	if r.id == "" {
		r.id = hashN(0x1d)
	}
	if r.recipient == "" {
		r.recipient = r.user
	}
	if r.status == "" {
		r.status = intent.StatusSuccess
	}
	if r.fail == "" {
		r.fail = intent.FailReasonNA
	}
	if r.created.IsZero() {
		r.created = time.Now()
	}
	if r.usd == "" {
		r.usd = "10"
	}
	if r.symbolIn == "" {
		r.symbolIn, r.symbolOut = "ETH", "ETH"
	}
	if r.currencyIn == "" {
		r.currencyIn = "0x0000000000000000000000000000000000000000"
	}
	name := "none"
	var keyID any
	if r.key != nil {
		keyID, name = r.key.ID, r.key.Label
	}
	rec := intent.Record{ID: r.id, Status: r.status, User: r.user, Recipient: r.recipient, Sender: r.user, RefundTo: r.user,
		RequestType: "intent", Features: []string{}, CreatedAt: r.created.UTC().Format(time.RFC3339Nano),
		UpdatedAt: r.created.UTC().Format(time.RFC3339Nano),
		Data: intent.RecordData{FailReason: r.fail, RefundFailReason: intent.RefundFailReasonNA, Referrer: r.referrer,
			InTxs: []intent.TxItem{}, OutTxs: []intent.TxItem{}, APIKeyName: &name,
			CurrencyIn:  &intent.AmountObject{Currency: intent.Currency{ChainID: r.origin, Symbol: r.symbolIn, Address: r.currencyIn}},
			CurrencyOut: &intent.AmountObject{Currency: intent.Currency{ChainID: r.dest, Symbol: r.symbolOut, Address: "0x0000000000000000000000000000000000000000"}}},
		Protocol: intent.Protocol{OrderID: hashN(0x0d)}}
	if r.platformFee {
		rec.Data.PlatformFee = &intent.PlatformFee{Bucket: "default"}
	}
	body, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := st.Pool().Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id,
		order_id, api_key_id, fail_reason, record, volume_usd, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::numeric, $12, $12)`,
		r.id, string(r.status), r.user, r.recipient, int64(r.origin), int64(r.dest), rec.Protocol.OrderID, keyID,
		string(r.fail), body, r.usd, r.created); err != nil {
		t.Fatal(err)
	}
	for _, tx := range []struct{ hash, dir, kind string }{{r.deposit, "in", "deposit"}, {r.fill, "out", "fill"}, {r.refund, "out", "refund"}} {
		if tx.hash == "" {
			continue
		}
		if _, err := st.Pool().Exec(ctx, `INSERT INTO request_transactions (request_id, direction, chain_id, tx_hash, block_number, kind)
			VALUES ($1, $2, $3, $4, 100, $5)`, r.id, tx.dir, int64(r.origin), tx.hash, tx.kind); err != nil {
			t.Fatal(err)
		}
	}
	return r.id
}

// search calls GET /requests/v3 with query and key, and returns the status, the ids in order
// and the decoded body.
func search(t *testing.T, rig *usageRig, query string, key usageKey) (int, []string, map[string]any) {
	t.Helper()
	code, body := get(t, rig.url, "/requests/v3?"+query, key.plain)
	var ids []string
	if reqs, ok := body["requests"].([]any); ok {
		for _, r := range reqs {
			ids = append(ids, r.(map[string]any)["id"].(string))
		}
	}
	return code, ids, body
}

func sameIDs(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s: got %d requests %v, want %d %v", what, len(got), got, len(want), want)
	}
}

func TestRequestsV3RequiresAKey(t *testing.T) {
	rig := newUsageRig(t)
	code, body := get(t, rig.url, "/requests/v3", "")
	if code != 401 || body["errorCode"] != CodeUnauthorized || body["message"] == "" {
		t.Fatalf("GET /requests/v3 without a key: %d %v, want 401 UNAUTHORIZED with a JSON body", code, body)
	}
	code, body = get(t, rig.url, "/requests/v3", "not-a-key")
	if code != 401 {
		t.Fatalf("GET /requests/v3 with no live key: %d %v, want 401", code, body)
	}
}

func TestRequestsV3SearchesEveryParameterInSQL(t *testing.T) {
	rig := newUsageRig(t)
	st := rig.st
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	u1, u2, u3 := addrN(1), addrN(2), addrN(3)
	dep, fill, refund := hashN(0xde), hashN(0xf1), hashN(0xaf)
	a := seedRequest(t, st, seedReq{user: u1, origin: 1, dest: 10, key: &rig.a1, created: base, usd: "5",
		symbolIn: "USDC", symbolOut: "ETH", deposit: dep, fill: fill, referrer: "acme-app", platformFee: true})
	b := seedRequest(t, st, seedReq{user: u1, recipient: u2, origin: 10, dest: 1, status: intent.StatusRefund,
		fail: "SOLVER_CAPACITY_EXCEEDED", key: &rig.g1, created: base.Add(time.Minute), usd: "500", refund: refund})
	c := seedRequest(t, st, seedReq{user: u2, origin: 8453, dest: 10, status: intent.StatusWaiting, created: base.Add(2 * time.Minute), usd: "50"})
	d := seedRequest(t, st, seedReq{user: u3, origin: 1, dest: 8453, status: intent.StatusFailure, fail: "UNKNOWN",
		key: &rig.a2, created: base.Add(3 * time.Minute), usd: "5000", symbolIn: "ETH", symbolOut: "USDC"})
	k := rig.a1
	for _, tc := range []searchCase{
		{"default: newest first", "", []string{d, c, b, a}},
		{"id", "id=" + a, []string{a}},
		{"orderId of none", "orderId=" + hashN(0), nil},
		{"depositTxHash", "depositTxHash=" + strings.ToUpper(dep[2:3]) + dep[:2] + dep[3:], nil}, // not a hash once mangled
		{"depositTxHash (any case)", "depositTxHash=0x" + strings.ToUpper(dep[2:]), []string{a}},
		{"fillTxHash", "fillTxHash=" + fill, []string{a}},
		{"a fill hash is no refund hash", "refundTxHash=" + fill, nil},
		{"refundTxHash", "refundTxHash=" + refund, []string{b}},
		{"term: a transaction hash", "term=" + refund, []string{b}},
		{"term: a wallet", "term=" + strings.ToLower(u2), []string{c, b}},
		{"term: a request id", "term=" + c, []string{c}},
		{"user is the sender", "user=" + u1, []string{b, a}},
		{"recipient", "recipient=" + u2, []string{c, b}},
		{"originChainId", "originChainId=1", []string{d, a}},
		{"destinationChainId", "destinationChainId=10", []string{c, a}},
		{"chainId: either direction", "chainId=8453", []string{d, c}},
		{"status", "status=refund", []string{b}},
		{"status list", "status=refund,failure", []string{d, b}},
		{"failReason", "failReason=UNKNOWN", []string{d}},
		{"currencyInSymbol is case-insensitive", "currencyInSymbol=usdc", []string{a}},
		{"currencyOutSymbol", "currencyOutSymbol=USDC", []string{d}},
		{"currencyInChainId", "currencyInChainId=8453", []string{c}},
		{"apiKeyId", "apiKeyId=" + rig.a2.ID, []string{d}},
		{"apiKey and apiKeyId are ORed", "apiKeyId=" + rig.a2.ID + "&apiKey=" + rig.a1.plain, []string{d, a}},
		{"referrer paired with a key", "referrer=acme-app&apiKeyId=" + rig.a1.ID, []string{a}},
		{"amountUsdMin/Max", "amountUsdMin=50&amountUsdMax=500", []string{c, b}},
		{"startTimestamp/endTimestamp, inclusive", fmt.Sprintf("startTimestamp=%d&endTimestamp=%d", base.Add(time.Minute).Unix(), base.Add(2*time.Minute).Unix()), []string{c, b}},
		{"startBlock/endBlock: the origin deposit's block", "startBlock=100&endBlock=100", []string{a}},
		{"sortBy amountUsd asc", "sortBy=amountUsd&sortDirection=asc", []string{a, c, b, d}},
		{"requestType", "requestType=intent&limit=1", []string{d}},
		{"filters: groups are ORed, keys ANDed", `filters=` + url.QueryEscape(`[{"user":"`+u1+`","status":"success"},{"originChainId":8453}]`), []string{c, a}},
		{"filters: an array is OR within a key", `filters=` + url.QueryEscape(`[{"status":["waiting","failure"]}]`), []string{d, c}},
		{"filters: not: negates", `filters=` + url.QueryEscape(`[{"not:status":"success","not:originChainId":[10,8453]}]`), []string{d}},
		{"filters: null is a null check", `filters=` + url.QueryEscape(`[{"fillTxHash":null,"refundTxHash":null}]`), []string{d, c}},
		{"filters: not:null is present", `filters=` + url.QueryEscape(`[{"not:refundTxHash":null}]`), []string{b}},
		{"filters: composite user", `filters=` + url.QueryEscape(`[{"user":"`+strings.ToLower(u3)+`"}]`), []string{d}},
		{"filters: currency symbol", `filters=` + url.QueryEscape(`[{"currencyInSymbol":"Usdc"},{"currencyOutSymbol":"usdc"}]`), []string{d, a}},
		{"filters: a failReason null check is N/A", `filters=` + url.QueryEscape(`{"failReason":null}`), []string{c, a}},
		{"filters AND top-level", "originChainId=1&filters=" + url.QueryEscape(`[{"status":"failure"},{"status":"success"}]`), []string{d, a}},
	} {
		checkSearch(t, rig, k, tc)
	}
}

func TestRequestsV3RefusesWhatItCannotApply(t *testing.T) {
	rig := newUsageRig(t)
	many := make([]string, 51)
	for i := range many {
		many[i] = uuid.NewString()
	}
	for _, tc := range []struct {
		name, query string
		status      int
	}{
		{"an unknown parameter is never dropped silently", "usr=0x1", 400},
		{"a parameter not supported yet", "fillTimeMin=3", 400},
		{"limit above 50", "limit=51", 400},
		{"limit below 1", "limit=0", 400},
		{"malformed UUID in apiKeyId is 400", "apiKeyId=not-a-uuid", 400},
		{"empty entry in apiKeyId is 400", "apiKeyId=" + rig.a1.ID + ",", 400},
		{"more than 50 keys after de-duplication is 400", "apiKeyId=" + strings.Join(many, ","), 400},
		{"a referrer filter without apiKey or apiKeyId is 400", "referrer=acme", 400},
		{"a referrer inside filters without a key is 400", "filters=" + url.QueryEscape(`[{"not:referrer":"acme"}]`), 400},
		{"an empty referrer is 400", "referrer=&apiKeyId=" + rig.a1.ID, 400},
		{"null mixed with values for one key is 400", "filters=" + url.QueryEscape(`[{"status":["success",null]}]`), 400},
		{"an unknown filters key is 400", "filters=" + url.QueryEscape(`[{"colour":"red"}]`), 400},
		{"range filters are top-level only", "filters=" + url.QueryEscape(`[{"amountUsdMin":1}]`), 400},
		{"features are top-level only", "filters=" + url.QueryEscape(`[{"features":"gasless_execution"}]`), 400},
		{"a malformed filters is 400", "filters=%5B", 400},
		{"a malformed hash is 400", "fillTxHash=0x12", 400},
		{"a malformed continuation is 400", "continuation=abc", 400},
		{"an unknown apiKeyId is 403", "apiKeyId=" + uuid.NewString(), 403},
		{"another integrator's key is 403", "apiKeyId=" + rig.g1.ID, 403},
		{"another integrator's key value is 403", "apiKey=" + rig.g1.plain, 403},
		{"a referrer paired with a foreign key is 403", "referrer=x&apiKeyId=" + rig.g1.ID, 403},
		{"a bad sortBy", "sortBy=id", 400},
	} {
		code, _, body := search(t, rig, tc.query, rig.a1)
		if code != tc.status || body["errorCode"] == nil || body["message"] == "" {
			t.Errorf("%s: %d %v, want %d with {message, errorCode}", tc.name, code, body, tc.status)
		}
	}
}

func TestRequestsV3OwnerOnlyFieldsOnlyToTheOwnerWhoAsks(t *testing.T) {
	rig := newUsageRig(t)
	id := seedRequest(t, rig.st, seedReq{user: addrN(7), origin: 1, dest: 10, key: &rig.a1, referrer: "acme-app", platformFee: true})
	fields := func(key usageKey, q string) map[string]any {
		code, ids, body := search(t, rig, "id="+id+q, key)
		if code != 200 || len(ids) != 1 {
			t.Fatalf("search: %d %v", code, body)
		}
		return body["requests"].([]any)[0].(map[string]any)["data"].(map[string]any)
	}
	owner := []string{"referrer", "platformFee", "apiKeyName", "blockedAddresses"}
	for _, tc := range []struct {
		name string
		key  usageKey
		q    string
		show bool
	}{
		{"owner with includeAuthenticatedData=true", rig.a2, "&includeAuthenticatedData=true", true},
		{"owner without includeAuthenticatedData", rig.a1, "", false},
		{"another integrator with includeAuthenticatedData=true", rig.g1, "&includeAuthenticatedData=true", false},
	} {
		data := fields(tc.key, tc.q)
		for _, f := range owner {
			if _, has := data[f]; has != tc.show {
				t.Errorf("%s: data.%s present=%v, want %v", tc.name, f, has, tc.show)
			}
		}
		if v, has := data["failReason"]; !has || v != nil {
			t.Errorf("%s: failReason %v (present %v), want null where the status says N/A", tc.name, v, has)
		}
	}
	if d := fields(rig.a1, "&includeAuthenticatedData=true"); d["apiKeyName"] != "a1" || d["referrer"] != "acme-app" || d["blockedAddresses"] != nil {
		t.Errorf("owner's fields: apiKeyName %v, referrer %v, blockedAddresses %v", d["apiKeyName"], d["referrer"], d["blockedAddresses"])
	}
}

func TestRequestsV3TotalIsExactAndIndependentOfLimitAndContinuation(t *testing.T) {
	rig := newUsageRig(t)
	for i := range 7 {
		seedRequest(t, rig.st, seedReq{user: addrN(100), origin: 1, dest: 10, created: time.Now().Add(-time.Duration(i) * time.Second)})
	}
	seedRequest(t, rig.st, seedReq{user: addrN(101), origin: 1, dest: 10})
	q := "user=" + addrN(100) + "&limit=3"
	code, ids, body := search(t, rig, q, rig.a1)
	if code != 200 || len(ids) != 3 {
		t.Fatalf("first page: %d %v", code, body)
	}
	if _, has := body["total"]; has {
		t.Errorf("total without includeTotal: %v", body["total"])
	}
	cont, _ := body["continuation"].(string)
	code, _, body = search(t, rig, q+"&includeTotal=true&continuation="+url.QueryEscape(cont), rig.a1)
	if code != 200 || body["total"] != float64(7) {
		t.Errorf("includeTotal on the second page: %d total %v, want 7", code, body["total"])
	}
	if _, _, body = search(t, rig, q+"&sortBy=updatedAt&continuation="+url.QueryEscape(cont), rig.a1); body["errorCode"] != CodeInvalidInput {
		t.Errorf("a continuation of another sort: %v, want 400", body)
	}
}

// TestRequestsV3ContinuationNeverRepeatsOrSkips pages through 1,000 requests 37 at a time while
// 200 newer ones are written and old ones change status: every one of the 1,000 is returned
// exactly once (keyset pages on created_at, id).
func TestRequestsV3ContinuationNeverRepeatsOrSkips(t *testing.T) {
	rig := newUsageRig(t)
	user := addrN(500)
	old := time.Now().Add(-24 * time.Hour)
	want := map[string]bool{}
	rows := make([][]any, 0, 1000)
	for i := range 1000 {
		id := hashN(0x70)
		want[id] = true
		// Ten requests share each creation time, so ties are broken by id across pages.
		rows = append(rows, []any{id, user, old.Add(time.Duration(i/10) * time.Second), hashN(0x0e)})
	}
	ctx := context.Background()
	for _, r := range rows {
		if _, err := rig.st.Pool().Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
			destination_chain_id, order_id, record, created_at, updated_at) VALUES ($1, 'waiting', $2, $2, 1, 10, $4,
			jsonb_build_object('id', $1::text), $3, $3)`, r...); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 200 {
			seedRequest(t, rig.st, seedReq{user: user, origin: 1, dest: 10})
			if _, err := rig.st.Pool().Exec(ctx, `UPDATE requests SET status = 'success', updated_at = now() WHERE id = $1`, rows[i*5][0]); err != nil {
				t.Error(err)
			}
		}
		close(done)
	})
	seen := map[string]int{}
	cont, pages := "", 0
	for {
		q := "user=" + user + "&limit=37"
		if cont != "" {
			q += "&continuation=" + url.QueryEscape(cont)
		}
		code, ids, body := search(t, rig, q, rig.a1)
		if code != 200 {
			t.Fatalf("page %d: %d %v", pages, code, body)
		}
		pages++
		for _, id := range ids {
			seen[id]++
		}
		next, _ := body["continuation"].(string)
		if next == "" {
			break
		}
		cont = next
	}
	wg.Wait()
	<-done
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("request %s returned %d times, want once", id, seen[id])
		}
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("request %s returned %d times", id, n)
		}
	}
	t.Logf("%d pages, %d requests seen (%d of them written while paging)", pages, len(seen), len(seen)-len(want))
}

func TestRequestsV3IncludeChildRequestsReturnsTheRefundRequestsOfDuplicateDeposits(t *testing.T) {
	rig := newUsageRig(t)
	base := time.Now().Add(-time.Minute)
	parent := seedRequest(t, rig.st, seedReq{user: addrN(300), origin: 1, dest: 10, created: base})
	child := seedRequest(t, rig.st, seedReq{user: addrN(300), origin: 1, dest: 10, status: intent.StatusRefund, created: base.Add(time.Second)})
	// As store.InsertRefundRequest writes a duplicate deposit's link: the record and the column
	// the lists filter on, together (migration 0014).
	if _, err := rig.st.Pool().Exec(context.Background(), `UPDATE requests SET record = jsonb_set(record, '{duplicateDeposits}',
		jsonb_build_object('parentRequestId', $2::text, 'refundRequestIds', jsonb_build_array($1::text))),
		parent_request_id = $2 WHERE id = $1`, child, parent); err != nil {
		t.Fatal(err)
	}
	_, ids, _ := search(t, rig, "id="+parent, rig.a1)
	sameIDs(t, "id alone", ids, parent)
	_, ids, _ = search(t, rig, "id="+parent+"&includeChildRequests=true", rig.a1)
	sameIDs(t, "id with includeChildRequests", ids, child, parent)
}

// Issue 36, point 2: "addresses base58 and case-sensitive everywhere (quotes, records, filters,
// events: no lower-casing)". A Solana request's wallet, mint and transaction signatures are
// found by GET /requests/v3 as written, by every key that takes them (user, recipient, term,
// currencyInAddress, the transaction keys, the filters language), and only as written: a wallet
// differing from another only in the case of one letter is another wallet, and a search for one
// never returns the other's request.
func TestRequestsV3FindsSolanaAddressesAndSignaturesExactlyAsWritten(t *testing.T) {
	rig := newUsageRig(t)
	st := rig.st
	wallet := solanago.NewWallet().PublicKey().String()
	twin := caseTwin(t, wallet)
	sigOf := func() string { var s solanago.Signature; _, _ = rand.Read(s[:]); return s.String() }
	dep, fill := sigOf(), sigOf()
	const mint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	a := seedRequest(t, st, seedReq{user: wallet, recipient: addrN(9), origin: 792703809, dest: 1, key: &rig.a1, created: base,
		deposit: dep, fill: hashN(0xf2), currencyIn: mint, symbolIn: "USDC", symbolOut: "USDC"})
	b := seedRequest(t, st, seedReq{user: twin, recipient: twin, origin: 1, dest: 792703809, key: &rig.a1, created: base.Add(time.Minute),
		deposit: hashN(0xd2), fill: fill})
	for _, tc := range []searchCase{
		{"user as written", "user=" + wallet, []string{a}},
		{"its case twin is another user", "user=" + twin, []string{b}},
		{"recipient", "recipient=" + twin, []string{b}},
		{"term: the wallet", "term=" + wallet, []string{a}},
		{"term: a signature", "term=" + fill, []string{b}},
		{"depositTxHash: a signature", "depositTxHash=" + dep, []string{a}},
		{"fillTxHash: a signature", "fillTxHash=" + fill, []string{b}},
		{"a signature lower-cased is not it", "depositTxHash=" + strings.ToLower(dep), nil},
		{"currencyInAddress: a mint as written", "currencyInAddress=" + mint, []string{a}},
		{"a mint lower-cased is not it", "currencyInAddress=" + strings.ToLower(mint), nil},
		{"filters: a wallet", `filters=` + url.QueryEscape(`[{"user":"`+twin+`"}]`), []string{b}},
		{"filters: both wallets", `filters=` + url.QueryEscape(`[{"user":["`+twin+`","`+wallet+`"]}]`), []string{b, a}},
		{"filters: a wallet and an EVM address", `filters=` + url.QueryEscape(`[{"recipient":["`+twin+`","`+strings.ToLower(addrN(9))+`"]}]`), []string{b, a}},
	} {
		checkSearch(t, rig, rig.a1, tc)
	}
}

// caseTwin is another valid base58 public key that differs from k only in the case of one
// letter.
func caseTwin(t *testing.T, k string) string {
	t.Helper()
	for i := range k {
		c := k[i]
		var o byte
		switch {
		case 'a' <= c && c <= 'z':
			o = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			o = c - 'A' + 'a'
		default:
			continue
		}
		twin := k[:i] + string(o) + k[i+1:]
		if intent.IsBase58Key(twin) {
			return twin
		}
	}
	t.Skipf("%s has no case twin", k)
	return ""
}

// searchCase is a search and the ids it must return, newest first; nil: none, or a 400.
type searchCase struct {
	name, query string
	want        []string
}

func checkSearch(t *testing.T, rig *usageRig, k usageKey, tc searchCase) {
	t.Helper()
	code, ids, body := search(t, rig, tc.query, k)
	if code != 200 {
		if tc.want == nil && code == 400 {
			return
		}
		t.Errorf("%s: %d %v", tc.name, code, body)
		return
	}
	sameIDs(t, tc.name, ids, tc.want...)
}
