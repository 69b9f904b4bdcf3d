package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gorilla/websocket"

	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/openapidoc"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/web"
)

// docCaller sends requests to the stack's API and checks every answer against the OpenAPI
// document the API serves, as a client loads it (openapidoc.Checker: kin-openapi's response
// validation), recording which operations answered with which statuses.
type docCaller struct {
	t       *testing.T
	base    string // the public listener
	admin   string // the admin API's listener (/admin/…)
	checker *openapidoc.Checker
	seen    map[string][]int // "METHOD /path/{param}" → statuses answered
	cookies []*http.Cookie   // the last answer's Set-Cookie
}

// call sends method to path (concrete, with its query) as the operation route (OpenAPI's form)
// with an optional JSON body and headers, checks the answer and returns its status and body.
func (d *docCaller) call(method, route, path string, body any, header map[string]string) (int, obj) {
	d.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			d.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	base := d.base
	if strings.HasPrefix(path, "/admin/") { // the admin API's own listener
		base = d.admin
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		d.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	d.cookies = res.Cookies()
	d.check(req, route, res, raw)
	var out obj
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, out
}

func (d *docCaller) check(req *http.Request, route string, res *http.Response, raw []byte) {
	d.t.Helper()
	key := req.Method + " " + route
	d.seen[key] = append(d.seen[key], res.StatusCode)
	if err := d.checker.Check(context.Background(), req, route, res.StatusCode, res.Header, raw); err != nil {
		d.t.Errorf("%s %s: %d %.600s\ndoes not match the OpenAPI document: %v", req.Method, req.URL.RequestURI(), res.StatusCode, raw, err)
	}
}

// must is call expecting status.
func (d *docCaller) must(status int, method, route, path string, body any, header map[string]string) obj {
	d.t.Helper()
	code, out := d.call(method, route, path, body, header)
	if code != status {
		d.t.Fatalf("%s %s: %d %v, want %d", method, path, code, out, status)
	}
	return out
}

// Every operation of the OpenAPI document is driven against the running API on the real parts
// (Postgres, Temporal, the devnet chains, the oracles) to a success, and every answer on the
// way, successes and errors alike, validates against the document the API serves
// (openapi3filter); the errors of every route are checked the same way in package api
// (TestEveryRouteAnswersABadRequestWithMessageAndErrorCodeAndTheTablesStatus).
func TestEveryDocumentedOperationAnswersAsTheDocumentSays(t *testing.T) {
	// GET /requests/v2 is served until its sunset: moved past today, so that it answers 200.
	// The local perps exchange runs too, for POST /authorize (a withdrawal from chain 1337).
	s := startStackWith(t, stackOptions{env: map[string]string{"REQUESTS_V2_SUNSET_AT": "2099-01-01T00:00:00Z"}, exchange: true})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	res, err := http.Get(s.API.BaseURL + "/documentation/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	checker, err := openapidoc.NewChecker(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	d := &docCaller{t: t, base: s.API.BaseURL, admin: s.Admin.BaseURL, checker: checker, seen: map[string][]int{}}
	bearer := map[string]string{"Authorization": "Bearer " + testAdminToken}
	user := devnet.TestAccounts()[4]

	// Health, the reference, the catalog.
	d.must(200, "GET", "/lives", "/lives", nil, nil)
	d.must(200, "GET", "/documentation", "/documentation", nil, nil)
	d.must(200, "GET", "/documentation/openapi.json", "/documentation/openapi.json", nil, nil)
	for _, name := range openapidoc.MustViewer(web.Docs(), "", "/documentation").Assets() {
		d.must(200, "GET", "/documentation/assets/{file}", "/documentation/assets/"+name, nil, nil)
	}
	// The dashboard's web app: its page and every asset it embeds.
	d.must(200, "GET", "/dashboard", "/dashboard", nil, nil)
	d.must(200, "GET", "/dashboard/", "/dashboard/", nil, nil)
	assets, err := fs.ReadDir(web.Dashboard(), "assets")
	if err != nil || len(assets) == 0 {
		t.Fatalf("the dashboard's embedded assets: %v %v", assets, err)
	}
	for _, a := range assets {
		d.must(200, "GET", "/dashboard/assets/{file}", "/dashboard/assets/"+a.Name(), nil, nil)
	}
	d.must(200, "GET", "/chains", "/chains", nil, nil)
	d.must(200, "GET", "/config/v2", "/config/v2?originChainId=31337&destinationChainId=31338&currency=usdc&user="+user.Address.Hex(), nil, nil)
	d.must(200, "GET", "/currencies/v2", "/currencies/v2?chainIds=31337,31338&term=u", nil, nil)
	d.must(200, "POST", "/currencies/v2", "/currencies/v2", obj{"chainIds": []int{31338}, "limit": 5}, nil)
	d.must(200, "GET", "/prices/rates", "/prices/rates", nil, nil)

	// An integrator with a key and a webhook, through the admin API.
	in := d.must(201, "POST", "/admin/integrators", "/admin/integrators", obj{"operator": "ops", "name": "openapi-co",
		"businessVerified": true, "payoutAddress": devnet.TestAccounts()[7].Address.Hex(),
		"sponsorWallet": devnet.TestAccounts()[7].Address.Hex(), "sponsorChainId": 31337}, bearer)
	ip := "/admin/integrators/" + str(t, in, "id")
	d.must(200, "GET", "/admin/integrators", "/admin/integrators", nil, bearer)
	d.must(200, "GET", "/admin/integrators/{integratorId}", ip, nil, bearer)
	d.must(200, "PATCH", "/admin/integrators/{integratorId}", ip, obj{"operator": "ops", "name": "openapi-co2"}, bearer)
	d.must(200, "POST", "/admin/integrators/{integratorId}/sponsorship/top-ups", ip+"/sponsorship/top-ups", obj{"operator": "ops", "amountUsd": "100"}, bearer)
	d.must(200, "POST", "/admin/integrators/{integratorId}/sponsorship/adjustments", ip+"/sponsorship/adjustments",
		obj{"operator": "ops", "amountUsd": "-1.5", "reason": "correction"}, bearer)
	created := d.must(201, "POST", "/admin/integrators/{integratorId}/keys", ip+"/keys", obj{"operator": "ops", "label": "server"}, bearer)
	kp := ip + "/keys/" + str(t, created, "apiKey.id")
	keyed := map[string]string{"x-api-key": str(t, created, "key")}
	d.must(200, "GET", "/admin/integrators/{integratorId}/keys", ip+"/keys", nil, bearer)
	d.must(200, "GET", "/admin/integrators/{integratorId}/keys/{keyId}", kp, nil, bearer)
	d.must(200, "PATCH", "/admin/integrators/{integratorId}/keys/{keyId}", kp, obj{"operator": "ops", "tier": "elevated"}, bearer)
	rcv := testkit.NewWebhookReceiver(t)
	const wh = "/admin/integrators/{integratorId}/keys/{keyId}/webhook"
	d.must(201, "PUT", wh, kp+"/webhook", obj{"operator": "ops", "url": rcv.URL}, bearer)
	d.must(200, "PUT", wh, kp+"/webhook", obj{"operator": "ops", "headers": map[string]string{"X-Team": "ops"}}, bearer)
	d.must(200, "GET", wh, kp+"/webhook", nil, bearer)
	d.must(200, "POST", wh+"/rotate", kp+"/webhook/rotate", obj{"operator": "ops", "overlapSeconds": 0}, bearer)
	d.must(200, "GET", "/integrators/quote-data", "/integrators/quote-data", nil, keyed)

	// An intent quoted with the key, run to success, reported by both hints.
	d.must(200, "POST", "/price", "/price", quoteBody(), nil)
	d.must(200, "POST", "/quote", "/quote", quoteBody(obj{"user": user.Address.Hex()}), nil)
	d.must(200, "POST", "/quote/v2", "/quote/v2", quoteBody(obj{"user": user.Address.Hex(), "includeProtocolData": true,
		"destinationCurrency": nativeAddr, "amount": "100000000000000000", "referrer": "openapi"}), keyed)
	resp, err := s.API.Quote(ctx, quoteBody(obj{"user": user.Address.Hex(), "destinationCurrency": nativeAddr, "amount": "100000000000000000"}))
	if err != nil {
		t.Fatal(err)
	}
	w := &e2e.Wallet{Key: user.Key, RPCs: s.RPCs}
	receipt, err := w.ExecuteSteps(ctx, resp)
	if err != nil {
		t.Fatal(err)
	}
	d.must(200, "POST", "/transactions/index", "/transactions/index", obj{"chainId": 31337, "txHash": receipt.TxHash.Hex(), "requestId": resp.RequestID}, nil)
	d.must(200, "POST", "/transactions/single", "/transactions/single", obj{"requestId": resp.RequestID, "chainId": "31337",
		"tx": fmt.Sprintf(`{"txHash":%q}`, receipt.TxHash.Hex())}, nil)
	// The keyed request's own deposit, so that its webhook has deliveries.
	kq, err := (&e2e.Client{BaseURL: s.API.BaseURL, APIKey: keyed["x-api-key"]}).Quote(ctx, quoteBody(obj{"user": user.Address.Hex(),
		"destinationCurrency": nativeAddr, "amount": "100000000000000000"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExecuteSteps(ctx, kq); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{resp.RequestID, kq.RequestID} {
		if _, _, err := s.API.WaitStatus(ctx, id, "success"); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"/intents/status/v3", "/intents/status/v2", "/intents/status"} {
		d.must(200, "GET", p, p+"?requestId="+kq.RequestID, nil, nil)
	}
	d.must(200, "GET", "/withdrawals/status", "/withdrawals/status?id="+kq.RequestID, nil, nil)
	d.must(200, "GET", "/requests/v3", "/requests/v3?includeTotal=true&includeAuthenticatedData=true&limit=2", nil, keyed)
	d.must(200, "GET", "/requests/v3", "/requests/v3?id="+kq.RequestID+"&includeAuthenticatedData=true", nil, keyed)
	d.must(200, "GET", "/requests/v2", "/requests/v2?includeOrderData=true&limit=3", nil, keyed)
	d.must(200, "GET", "/requests", "/requests?limit=1", nil, nil)
	d.must(200, "GET", "/metrics/usage", "/metrics/usage?granularity=hourly", nil, keyed)

	// The webhook's delivery log, and sending again.
	stop := s.StartDispatcher(t, nil)
	defer stop()
	var deliveryID string
	for deadline := time.Now().Add(30 * time.Second); deliveryID == "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		out := d.must(200, "GET", wh+"/deliveries", kp+"/webhook/deliveries?limit=5", nil, bearer)
		if list, _ := out["deliveries"].([]any); len(list) > 0 {
			deliveryID = fmt.Sprintf("%.0f", get(t, list[0], "id"))
		}
	}
	if deliveryID == "" {
		t.Fatal("the keyed request's webhook has no delivery")
	}
	d.must(202, "POST", wh+"/deliveries/{deliveryId}/resend", kp+"/webhook/deliveries/"+deliveryID+"/resend", obj{"operator": "ops"}, bearer)
	d.must(202, "POST", wh+"/resend", kp+"/webhook/resend", obj{"operator": "ops", "since": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}, bearer)
	d.must(200, "POST", wh+"/disable", kp+"/webhook/disable", obj{"operator": "ops"}, bearer)

	// The integrator dashboard (docs/dashboard.md): an owner made through the admin API signs in
	// by a one-time link, then by password, and drives the team, a key and its webhook.
	const du = "/admin/integrators/{integratorId}/dashboard-users"
	owner := d.must(201, "POST", du, ip+"/dashboard-users", obj{"operator": "ops", "email": "owner@openapi.example", "role": "owner"}, bearer)
	d.must(200, "GET", du, ip+"/dashboard-users", nil, bearer)
	link := d.must(201, "POST", du+"/{userId}/links", ip+"/dashboard-users/"+str(t, owner, "id")+"/links", obj{"operator": "ops"}, bearer)
	session := func(me obj) map[string]string {
		for _, c := range d.cookies {
			if c.Name == "intentd_dashboard" {
				return map[string]string{"Cookie": c.Name + "=" + c.Value, "X-CSRF-Token": str(t, me, "csrfToken")}
			}
		}
		t.Fatalf("no session cookie: %v", d.cookies)
		return nil
	}
	me := d.must(200, "POST", "/dashboard/api/session/link", "/dashboard/api/session/link", obj{"token": str(t, link, "token")}, nil)
	sess := session(me)
	d.must(200, "PUT", "/dashboard/api/me/password", "/dashboard/api/me/password", obj{"newPassword": "an openapi dashboard password"}, sess)
	me = d.must(200, "POST", "/dashboard/api/session", "/dashboard/api/session", obj{"email": "owner@openapi.example",
		"password": "an openapi dashboard password"}, nil)
	sess = session(me)
	d.must(200, "GET", "/dashboard/api/me", "/dashboard/api/me", nil, sess)
	invited := d.must(201, "POST", "/dashboard/api/team", "/dashboard/api/team", obj{"email": "dev@openapi.example", "role": "developer"}, sess)
	d.must(200, "GET", "/dashboard/api/team", "/dashboard/api/team", nil, sess)
	up := "/dashboard/api/team/" + str(t, invited, "user.id")
	d.must(200, "PATCH", "/dashboard/api/team/{userId}", up, obj{"role": "support"}, sess)
	d.must(204, "DELETE", "/dashboard/api/team/{userId}", up, nil, sess)
	dk := d.must(201, "POST", "/dashboard/api/keys", "/dashboard/api/keys", obj{"label": "dashboard"}, sess)
	dkp := "/dashboard/api/keys/" + str(t, dk, "apiKey.id")
	d.must(200, "GET", "/dashboard/api/keys", "/dashboard/api/keys", nil, sess)
	d.must(200, "PATCH", "/dashboard/api/keys/{keyId}", dkp, obj{"label": "dashboard key"}, sess)
	const dwh = "/dashboard/api/keys/{keyId}/webhook"
	d.must(201, "PUT", dwh, dkp+"/webhook", obj{"url": rcv.URL}, sess)
	d.must(200, "PUT", dwh, dkp+"/webhook", obj{"enabled": true}, sess)
	d.must(200, "GET", dwh, dkp+"/webhook", nil, sess)
	d.must(200, "POST", dwh+"/rotate", dkp+"/webhook/rotate", obj{"overlapSeconds": 0}, sess)
	queued := d.must(202, "POST", dwh+"/test", dkp+"/webhook/test", nil, sess)
	d.must(200, "GET", dwh+"/deliveries", dkp+"/webhook/deliveries?limit=5", nil, sess)
	d.must(202, "POST", dwh+"/deliveries/{deliveryId}/resend", fmt.Sprintf("%s/webhook/deliveries/%.0f/resend", dkp, get(t, queued, "deliveryId")),
		nil, sess)
	d.must(200, "POST", "/dashboard/api/keys/{keyId}/revoke", dkp+"/revoke", nil, sess)
	// The requests surface, the views, the charts and the balance (the keyed request is the
	// integrator's); the owner made an operator so that the request page links the workflow.
	d.must(200, "PATCH", du+"/{userId}", ip+"/dashboard-users/"+str(t, owner, "id"), obj{"operator": "ops", "isOperator": true}, bearer)
	d.must(200, "GET", "/dashboard/api/requests", "/dashboard/api/requests?limit=2&includeTotal=true", nil, sess)
	d.must(200, "GET", "/dashboard/api/search", "/dashboard/api/search?q="+kq.RequestID, nil, sess)
	d.must(200, "GET", "/dashboard/api/requests/{requestId}", "/dashboard/api/requests/"+kq.RequestID, nil, sess)
	d.must(200, "GET", "/dashboard/api/views", "/dashboard/api/views", nil, sess)
	view := d.must(201, "POST", "/dashboard/api/views", "/dashboard/api/views", obj{"name": "Refunds", "icon": "undo", "colour": "#aa0000",
		"query": obj{"status": []string{"refund"}}}, sess)
	d.must(200, "PATCH", "/dashboard/api/views/{viewId}", "/dashboard/api/views/"+str(t, view, "id"), obj{"name": "My refunds"}, sess)
	d.must(204, "DELETE", "/dashboard/api/views/{viewId}", "/dashboard/api/views/"+str(t, view, "id"), nil, sess)
	d.must(200, "GET", "/dashboard/api/observability", "/dashboard/api/observability?granularity=hourly", nil, sess)
	d.must(200, "GET", "/dashboard/api/balance", "/dashboard/api/balance?limit=5", nil, sess)
	d.must(204, "DELETE", "/dashboard/api/session", "/dashboard/api/session", nil, sess)

	// A refund only an operator can make: refundTo cannot receive ETH.
	acct := devnet.TestAccounts()[2]
	rq := s.ethBridge(t, ctx, acct.Address, devnet.TestAccounts()[8].Address, devnet.USDCAddress, "100000000000000000")
	dep := depositStep(t, rq)
	v, _ := new(big.Int).SetString(dep.Value, 10)
	dep.Value = new(big.Int).Div(v, big.NewInt(2)).String()
	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).SendTx(ctx, dep); err != nil {
		t.Fatal(err)
	}
	if st, _, err := s.API.WaitStatus(ctx, rq.RequestID, "failure"); err != nil || st.RefundFailReason != string(intent.RefundFailReasonManualRefundRequired) {
		t.Fatalf("%+v %v", st, err)
	}
	if out := d.must(200, "GET", "/withdrawals/status", "/withdrawals/status?id="+rq.RequestID, nil, nil); out["status"] != "processing" {
		t.Errorf("a deposit held for an operator: %v", out)
	}
	d.must(200, "POST", "/admin/requests/{requestId}/refund", "/admin/requests/"+rq.RequestID+"/refund",
		obj{"operator": "ops", "reason": "refundTo cannot receive ETH"}, bearer)
	if out := d.must(200, "GET", "/withdrawals/status", "/withdrawals/status?id="+rq.RequestID, nil, nil); out["status"] != "executed" {
		t.Errorf("after the operator's refund: %v", out)
	}

	// A deposit address quoted with the key (issue 35): looked up, with its history, reindexed,
	// disabled by the key and by an operator.
	daq := d.must(200, "POST", "/quote/v2", "/quote/v2", quoteBody(obj{"user": user.Address.Hex(), "destinationCurrency": nativeAddr,
		"amount": "100000000000000000", "useDepositAddress": true, "strict": true, "refundTo": user.Address.Hex()}), keyed)
	daStep := daq["steps"].([]any)[0]
	daID := str(t, daStep, "depositAddressId")
	d.must(200, "GET", "/deposit-addresses/v1", "/deposit-addresses/v1?address="+str(t, daStep, "depositAddress"), nil, nil)
	d.must(200, "GET", "/deposit-addresses/v2", "/deposit-addresses/v2?requestId="+str(t, daq, "requestId"), nil, nil)
	d.must(200, "POST", "/transactions/deposit-address/reindex", "/transactions/deposit-address/reindex",
		obj{"chainId": 31337, "depositAddress": str(t, daStep, "depositAddress")}, keyed)
	d.must(200, "POST", "/deposit-addresses/{depositAddressId}/disable/v2", "/deposit-addresses/"+daID+"/disable/v2", nil, keyed)
	d.must(200, "POST", "/admin/deposit-addresses/{depositAddressId}/disable", "/admin/deposit-addresses/"+daID+"/disable",
		obj{"operator": "ops", "reason": "openapi"}, bearer)

	// Gasless execution (issue 37): a wallet without ETH has its USDC quote executed with the key.
	gasAmount := big.NewInt(20_000_000)
	gasUser := s.gaslessUser(t, ctx, gasAmount)
	gq, err := s.API.Quote(ctx, obj{"user": crypto.PubkeyToAddress(gasUser.PublicKey).Hex(), "originChainId": 31337, "destinationChainId": 31338,
		"originCurrency": devnet.USDCAddress.Hex(), "destinationCurrency": devnet.USDCAddress.Hex(), "amount": gasAmount.String(),
		"tradeType": "EXACT_INPUT"})
	if err != nil {
		t.Fatal(err)
	}
	d.must(200, "POST", "/execute", "/execute", gaslessBody(t, gasUser, gasUser, gq, true), keyed)
	if st, _, err := s.API.WaitStatus(ctx, gq.RequestID, "success", "failure", "refund"); err != nil || st.Status != "success" {
		t.Fatalf("the gasless request: %+v %v", st, err)
	}

	// A withdrawal from the perps exchange (issue 38): its authorize step's NonceMapping, signed by
	// the wallet, posted to /authorize as the SDK posts a signature step.
	wAcct := devnet.TestAccounts()[8]
	var wq obj
	if code, err := s.API.Do(ctx, http.MethodPost, "/quote/v2", obj{"user": wAcct.Address.Hex(), "recipient": wAcct.Address.Hex(),
		"originChainId": devnet.ExchangeChainID, "destinationChainId": 31337, "originCurrency": "0x00000000000000000000000000000000",
		"destinationCurrency": devnet.USDCAddress.Hex(), "amount": "1000000000", "tradeType": "EXACT_INPUT", "protocolVersion": "v2",
		"includeProtocolData": true}, &wq); err != nil || code != http.StatusOK {
		t.Fatalf("the withdrawal's quote: %d %v %v", code, wq, err)
	}
	wAuth := get(t, wq["steps"].([]any)[0], "items").([]any)[0]
	wNonce := uint64(get(t, wAuth, "data.sign.value.nonce").(float64))
	wSig := signTyped(t, perps.Exchange{}.NonceMappingTypedData(perps.NonceMapping{Wallet: wAcct.Address, Depositor: wAcct.Address,
		OrderID: common.HexToHash(str(t, wq, "protocol.v2.orderId")), Nonce: wNonce}), wAcct.Key)
	d.must(200, "POST", "/authorize", "/authorize?signature="+wSig, get(t, wAuth, "data.post.body"), keyed)

	// The websocket upgrade, the removed endpoints, the key's revocation.
	wsURL := "ws" + strings.TrimPrefix(s.API.BaseURL, "http") + "/ws"
	ws, wsRes, err := websocket.DefaultDialer.Dial(wsURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", s.API.BaseURL+"/ws", nil)
	d.check(req, "/ws", wsRes, nil)
	_ = ws.Close()
	d.must(404, "POST", "/execute/swap", "/execute/swap", obj{}, nil)
	d.must(404, "GET", "/requests/{requestId}/signature", "/requests/"+rq.RequestID+"/signature", nil, nil)
	d.must(404, "GET", "/requests/{requestId}/signature/v2", "/requests/"+rq.RequestID+"/signature/v2", nil, nil)
	d.must(200, "POST", "/admin/integrators/{integratorId}/keys/{keyId}/revoke", kp+"/revoke", obj{"operator": "ops"}, bearer)

	// Every operation answered, with a success unless it exists only to say it was removed.
	var missing []string
	for path, item := range checker.Doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + path
			ok := false
			for _, st := range d.seen[key] {
				ok = ok || st < 300 || op.Deprecated && op.Tags[0] == "removed"
			}
			if !ok {
				missing = append(missing, fmt.Sprintf("%s (answered %v)", key, d.seen[key]))
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("operations not driven to a success: %s", strings.Join(missing, "; "))
	}
}
