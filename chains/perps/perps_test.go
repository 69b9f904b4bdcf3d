package perps_test

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/intent"
)

// The fixed key of these tests, and its address.
const (
	testKey  = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	testAddr = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
)

var (
	orderID     = common.HexToHash("0x3bfd000000000000000000000000000000000000000000000000000000000001")
	depository  = "0x865e000000000000000000000000000000007081"
	spotUSDC    = "0x6d1e7cde53ba9467b783cb7c530ce054"
	sampleNonce = uint64(1770329064777)
)

func key(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.HexToECDSA(testKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// sign signs td with k as a wallet does: v 27 or 28.
func sign(t *testing.T, k *ecdsa.PrivateKey, td apitypes.TypedData) []byte {
	t.Helper()
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(hash, k)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return sig
}

func mapping() perps.NonceMapping {
	a := common.HexToAddress(testAddr)
	return perps.NonceMapping{Wallet: a, Depositor: a, OrderID: orderID, Nonce: sampleNonce, SignatureChainID: 1}
}

// "Step authorize (kind signature): an EIP-712 message NonceMapping with domain name
// ServiceNonceMapping, version 2, chainId, verifyingContract (zero address)": a message signed
// with the key recovers its address, with v 27/28 and 0/1 alike.
func TestANonceMappingSignedWithAKeyRecoversItsAddress(t *testing.T) {
	x := perps.Default()
	td := x.NonceMappingTypedData(mapping())
	sig := sign(t, key(t), td)
	for _, v := range []byte{sig[64], sig[64] - 27} {
		s := bytes.Clone(sig)
		s[64] = v
		got, err := perps.VerifyNonceMapping(td, s)
		if err != nil || got != common.HexToAddress(testAddr) {
			t.Fatalf("v=%d: signer %s, %v; want %s", v, got.Hex(), err, testAddr)
		}
	}
}

// The same message signed by viem (signTypedData of the public SDK's wallet client, with the
// domain and types of the step's sign data) verifies: go-ethereum and the wallet hash it alike.
func TestAWalletsSignatureOfTheNonceMappingVerifies(t *testing.T) {
	const viemSig = "0xc64336a0275683d5a7c182fce85112479c7c4792dfd50cdd89c3b84ba140dbfa11bce8fb40ffcad91610450d699e4ada48c1ea9435b90a4f28e4ad4cd944bd701b"
	got, err := perps.VerifyNonceMapping(perps.Default().NonceMappingTypedData(mapping()), hexutil.MustDecode(viemSig))
	if err != nil || got != common.HexToAddress(testAddr) {
		t.Fatalf("signer %s, %v; want %s", got.Hex(), err, testAddr)
	}
}

// "They only affect signature validity": any field of the message, or the signing chain, other
// than what was signed recovers another address; a signature that is not one is an error.
func TestANonceMappingWithAnyFieldChangedRecoversAnotherSigner(t *testing.T) {
	x := perps.Default()
	sig := sign(t, key(t), x.NonceMappingTypedData(mapping()))
	other := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	for name, change := range map[string]func(*perps.NonceMapping){
		"wallet":           func(m *perps.NonceMapping) { m.Wallet = other },
		"depositor":        func(m *perps.NonceMapping) { m.Depositor = other },
		"id":               func(m *perps.NonceMapping) { m.OrderID[31] ^= 1 },
		"nonce":            func(m *perps.NonceMapping) { m.Nonce++ },
		"signatureChainId": func(m *perps.NonceMapping) { m.SignatureChainID = 42161 },
	} {
		m := mapping()
		change(&m)
		if got, err := perps.VerifyNonceMapping(x.NonceMappingTypedData(m), sig); err == nil && got == common.HexToAddress(testAddr) {
			t.Errorf("%s changed: still recovers the signer", name)
		}
	}
	if got, _ := perps.VerifyNonceMapping(perps.Exchange{Word: "Other"}.NonceMappingTypedData(mapping()), sig); got == common.HexToAddress(testAddr) {
		t.Error("another exchange's chainId string: still recovers the signer")
	}
	high := bytes.Clone(sig) // the mirrored signature (s in the upper half) is refused
	s := new(big.Int).Sub(crypto.S256().Params().N, new(big.Int).SetBytes(sig[32:64]))
	copy(high[32:64], math.U256Bytes(s))
	high[64] ^= 1
	for name, bad := range map[string][]byte{"short": sig[:64], "v=29": append(bytes.Clone(sig[:64]), 29), "high s": high,
		"zero r": append(make([]byte, 32), sig[32:]...)} {
		if _, err := perps.VerifyNonceMapping(x.NonceMappingTypedData(mapping()), bad); !errors.Is(err, perps.ErrBadSignature) {
			t.Errorf("%s: %v, want ErrBadSignature", name, err)
		}
	}
}

// compact is s without insignificant whitespace.
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The authorize step's item data is the public example's (§7.2 of the reference notes), field by
// field and in its order, with the neutral names: "item data: sign {signatureKind eip712,
// domain, types, value, primaryType}, post {endpoint /authorize, method POST, body}".
func TestTheAuthorizeItemIsThePublicExamplesShape(t *testing.T) {
	wallet := "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23"
	want := compact(t, `{
	  "sign": { "signatureKind": "eip712",
	    "domain": { "name": "ServiceNonceMapping", "version": "2", "chainId": 1, "verifyingContract": "0x0000000000000000000000000000000000000000" },
	    "types": { "NonceMapping": [ {"name":"chainId","type":"string"}, {"name":"wallet","type":"address"},
	                                 {"name":"depositor","type":"address"}, {"name":"id","type":"bytes32"}, {"name":"nonce","type":"uint256"} ] },
	    "value": { "chainId": "exchange", "wallet": "`+wallet+`", "depositor": "`+wallet+`", "nonce": 1770329064777, "id": "`+orderID.Hex()+`" },
	    "primaryType": "NonceMapping" },
	  "post": { "endpoint": "/authorize", "method": "POST",
	    "body": { "type": "nonce-mapping", "walletChainId": 1337, "wallet": "`+wallet+`", "depositor": "`+wallet+`",
	              "nonce": 1770329064777, "id": "`+orderID.Hex()+`", "signatureChainId": 1 } }
	}`)
	item, err := perps.Default().AuthorizeStepItem(mapping())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(item)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status string
		Data   json.RawMessage
		Post   json.RawMessage
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if string(got.Data) != want {
		t.Fatalf("data\n got %s\nwant %s", got.Data, want)
	}
	var post struct{ Post json.RawMessage }
	_ = json.Unmarshal(got.Data, &post)
	if got.Status != intent.StepItemIncomplete || string(got.Post) != string(post.Post) {
		t.Fatalf("item: status %q, post %s; want incomplete and the data's post %s", got.Status, got.Post, post.Post)
	}
	// The step's sign data, read back the way a wallet does (EIP712Domain derived from the
	// domain), is the message VerifyNonceMapping checks.
	var data struct{ Sign apitypes.TypedData }
	if err := json.Unmarshal(got.Data, &data); err != nil {
		t.Fatal(err)
	}
	var value struct {
		Sign struct{ Value map[string]any }
	}
	d := json.NewDecoder(bytes.NewReader(got.Data))
	d.UseNumber()
	if err := d.Decode(&value); err != nil {
		t.Fatal(err)
	}
	td := perps.Default().NonceMappingTypedData(mapping())
	asSigned := apitypes.TypedData{Types: td.Types, PrimaryType: data.Sign.PrimaryType, Domain: data.Sign.Domain, Message: map[string]any{}}
	for k, v := range value.Sign.Value {
		if n, ok := v.(json.Number); ok {
			v = n.String()
		}
		asSigned.Message[k] = v
	}
	want1, _, _ := apitypes.TypedDataAndHash(td)
	got1, _, err := apitypes.TypedDataAndHash(asSigned)
	if err != nil || !bytes.Equal(want1, got1) {
		t.Fatalf("the step's message hashes to %x (%v), VerifyNonceMapping's to %x", got1, err, want1)
	}
}

func sendAsset() perps.SendAsset {
	return perps.SendAsset{Destination: depository, Token: perps.Token("USDC", spotUSDC),
		Amount: perps.FormatAmount(big.NewInt(1_000_000_000), perps.USDCDecimals), Nonce: sampleNonce}
}

// "Step deposit (kind transaction): data holds action {type sendAsset, parameters <exchange>Chain,
// destination, sourceDex, destinationDex, token, amount, fromSubAccount, nonce}, nonce,
// eip712Types (type <Exchange>Transaction:SendAsset) and eip712PrimaryType": the public example,
// field by field and in its order.
func TestTheDepositItemIsThePublicExamplesShape(t *testing.T) {
	want := compact(t, `{ "action": { "type": "sendAsset", "parameters": { "exchangeChain": "Mainnet", "destination": "`+depository+`",
	    "sourceDex": "", "destinationDex": "", "token": "USDC:0x6d1e7cde53ba9467b783cb7c530ce054",
	    "amount": "10.000000", "fromSubAccount": "", "nonce": 1770329064777 } },
	  "nonce": 1770329064777,
	  "eip712Types": { "ExchangeTransaction:SendAsset": [ {"name":"exchangeChain","type":"string"},
	    {"name":"destination","type":"string"}, {"name":"sourceDex","type":"string"}, {"name":"destinationDex","type":"string"},
	    {"name":"token","type":"string"}, {"name":"amount","type":"string"}, {"name":"fromSubAccount","type":"string"},
	    {"name":"nonce","type":"uint64"} ] },
	  "eip712PrimaryType": "ExchangeTransaction:SendAsset" }`)
	item, err := perps.Default().SendAssetStepItem(sendAsset())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(item)
	var got struct {
		Status string
		Data   json.RawMessage
		Post   json.RawMessage
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if string(got.Data) != want || got.Status != intent.StepItemIncomplete || got.Post != nil {
		t.Fatalf("item %s\nwant data %s", b, want)
	}
	// Read back into a step item, the data is kept as written.
	var back intent.StepItem
	if err := json.Unmarshal(b, &back); err != nil || back.Data.Other == nil || string(*back.Data.Other) != want {
		t.Fatalf("read back: %+v %v", back.Data, err)
	}
	// Another word names every identifier.
	hl, _ := json.Marshal(perps.Exchange{Word: "Venue", Chain: "Testnet"}.SendAssetStepData(sendAsset()))
	for _, s := range []string{`"venueChain":"Testnet"`, `"VenueTransaction:SendAsset":[{"name":"venueChain"`, `"eip712PrimaryType":"VenueTransaction:SendAsset"`} {
		if !bytes.Contains(hl, []byte(s)) {
			t.Errorf("word Venue: %s lacks %s", hl, s)
		}
	}
}

// A wallet signs the deposit step's action as the public SDK does (domain <Exchange>SignTransaction
// v1 on its chain, the step's eip712Types, the parameters as the message): viem's signature of it
// recovers the wallet from SendAssetTypedData, the message the exchange verifies.
func TestAWalletsSignatureOfTheSendAssetVerifies(t *testing.T) {
	const viemSig = "0xb67430c331c44986ec2cd3323a9fd9b0078ba6a3085f592afaea87908d2a1a78640df26b6b9ec42e03c16a27b9a39631bed39ac01b85d3fa82eb45849028bc571b"
	td := perps.Default().SendAssetTypedData(sendAsset(), 42161)
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig := hexutil.MustDecode(viemSig)
	sig[64] -= 27
	pub, err := crypto.SigToPub(hash, sig)
	if err != nil || crypto.PubkeyToAddress(*pub) != common.HexToAddress(testAddr) {
		t.Fatalf("signer of the sendAsset: %v", err)
	}
	if got := perps.SignatureChainIDHex(42161); got != "0xa4b1" {
		t.Fatalf("signatureChainId %s", got)
	}
	// Posted to the exchange: the shared contract's POST /exchange body, field by field.
	req, err := perps.Default().ExchangeRequestOf(sendAsset(), 42161, hexutil.MustDecode(viemSig))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(req)
	want := `{"action":{"type":"sendAsset","signatureChainId":"0xa4b1","exchangeChain":"Mainnet","destination":"` + depository +
		`","sourceDex":"","destinationDex":"","token":"USDC:0x6d1e7cde53ba9467b783cb7c530ce054","amount":"10.000000","fromSubAccount":"",` +
		`"nonce":1770329064777},"nonce":1770329064777,"signature":{"r":"` + viemSig[:66] + `","s":"0x` + viemSig[66:130] + `","v":27}}`
	if string(b) != want {
		t.Fatalf("POST /exchange body\n got %s\nwant %s", b, want)
	}
	sig[64] = 1 // v 0/1 is written 27/28
	if rsv, err := perps.RSVOf(sig); err != nil || rsv.V != 28 {
		t.Fatalf("v 1: %+v %v", rsv, err)
	}
}

// Amounts are decimal strings: "quote amount 1000000000 at 8 decimals → 10.000000", exact beyond
// six decimals, and read back strictly.
func TestAmountsAreExactDecimalStrings(t *testing.T) {
	for _, c := range []struct {
		units    int64
		decimals uint8
		want     string
	}{
		{1_000_000_000, 8, "10.000000"}, {1_050_000_000, 8, "10.500000"}, {1_234_567_891, 8, "12.34567891"},
		{1_234_567_890, 8, "12.3456789"}, {1, 8, "0.00000001"}, {0, 8, "0.000000"}, {5, 0, "5"}, {12345, 2, "123.45"},
		{1_000_000, 6, "1.000000"},
	} {
		got := perps.FormatAmount(big.NewInt(c.units), c.decimals)
		if got != c.want {
			t.Errorf("%d at %d: %q, want %q", c.units, c.decimals, got, c.want)
		}
		back, err := perps.ParseAmount(got, c.decimals)
		if err != nil || back.Int64() != c.units {
			t.Errorf("%q at %d read back as %v, %v", got, c.decimals, back, err)
		}
	}
	if n, err := perps.ParseAmount("10.5", 8); err != nil || n.Int64() != 1_050_000_000 {
		t.Errorf("10.5: %v %v", n, err)
	}
	for _, bad := range []string{"", "1.", ".5", "-1", "+1", "1e8", "1.000000001", "01", " 1", "1,5", "0x10", "1.2.3", "NaN"} {
		if n, err := perps.ParseAmount(bad, 8); err == nil {
			t.Errorf("%q read as %v", bad, n)
		}
	}
}
