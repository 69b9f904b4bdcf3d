package intent

import (
	"encoding/json"
	"testing"
)

// An item's data is written as the transaction it is (EVM, or with a Solana transaction's fields),
// or whole when it is no transaction (Other: a signature item's {sign, post}, the perps
// exchange's action), and read back the same.
func TestItemDataIsTheTransactionOrTheOtherDataWhole(t *testing.T) {
	tables := []string{}
	other, err := OtherData(SignatureData{Sign: &SignData{SignatureKind: SignatureKindEIP712, PrimaryType: "M"},
		Post: &StepPostTo{Endpoint: "/authorize", Method: "POST", Body: map[string]int{"n": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data TxData
		want string
	}{
		{TxData{From: "0xf", To: "0xt", Data: "0x", Value: "1", ChainID: 1}, `{"from":"0xf","to":"0xt","data":"0x","value":"1","chainId":1}`},
		{TxData{From: "f", To: "t", Value: "0", ChainID: 792703809, SVMTx: &SVMTx{AddressLookupTableAddresses: &tables}},
			`{"from":"f","to":"t","data":"","value":"0","chainId":792703809,"addressLookupTableAddresses":[]}`},
		{other, `{"sign":{"signatureKind":"eip712","domain":null,"types":null,"value":null,"primaryType":"M"},` +
			`"post":{"endpoint":"/authorize","method":"POST","body":{"n":1}}}`},
	} {
		b, err := json.Marshal(StepItem{Status: StepItemIncomplete, Data: c.data})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"status":"incomplete","data":` + c.want + `}`; string(b) != want {
			t.Errorf("got  %s\nwant %s", b, want)
		}
		var back StepItem
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(b) {
			t.Errorf("read back: %s, want %s", again, b)
		}
		if (back.Data.Other != nil) != (c.data.Other != nil) {
			t.Errorf("read back %s: Other %v", b, back.Data.Other)
		}
	}
}
