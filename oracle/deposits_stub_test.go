package oracle

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// stubReader answers like a node at a chosen moment; it covers races a live chain cannot be
// paused in (the receipt read before a reorg, the header after it).
type stubReader struct {
	receipt    *types.Receipt
	receiptErr error
	pending    bool
	txErr      error
	head       uint64
	header     *types.Header
	headerErr  error
}

func (s *stubReader) ChainID(context.Context) (*big.Int, error) { return big.NewInt(testChainID), nil }
func (s *stubReader) CallContract(context.Context, ethereum.CallMsg, *big.Int) ([]byte, error) {
	return nil, errors.New("not stubbed")
}
func (s *stubReader) BlockNumber(context.Context) (uint64, error)           { return s.head, nil }
func (s *stubReader) get(context.Context, *chains.Chain) (evmReader, error) { return s, nil }
func (s *stubReader) close()                                                {}
func (s *stubReader) HeaderByNumber(context.Context, *big.Int) (*types.Header, error) {
	return s.header, s.headerErr
}
func (s *stubReader) TransactionReceipt(context.Context, common.Hash) (*types.Receipt, error) {
	return s.receipt, s.receiptErr
}
func (s *stubReader) TransactionByHash(context.Context, common.Hash) (*types.Transaction, bool, error) {
	if s.txErr != nil {
		return nil, false, s.txErr
	}
	return types.NewTx(&types.LegacyTx{}), s.pending, nil
}

// errIndexing is what geth answers for a lookup before its transaction index is built.
var errIndexing = errors.New("transaction indexing is in progress")

var stubDepository = common.HexToAddress("0x00000000000000000000000000000000000000a0")

func depositLog(addr common.Address, index uint, orderID common.Hash, amount int64) *types.Log {
	return &types.Log{
		Address: addr,
		Topics: []common.Hash{depositEventID, orderID,
			common.BytesToHash(common.HexToAddress(addrA).Bytes()), common.BytesToHash(common.HexToAddress(addrB).Bytes())},
		Data:  common.LeftPadBytes(big.NewInt(amount).Bytes(), 32),
		Index: index,
	}
}

func stubServer(t *testing.T, stub *stubReader, confirmations uint64) *Server {
	srv, err := NewServer(mustConfig(t, map[string]string{EnvRateLimitMax: "1000"}), registry(t, chains.Chain{
		ID: testChainID, Name: "stub", HTTPRPCURL: "http://127.0.0.1:1", Confirmations: confirmations,
		Depository: stubDepository.Hex(), Currency: chains.Currency{Symbol: "ETH", Decimals: 18},
	}), nil)
	require.NoError(t, err)
	srv.clients = stub
	return srv
}

func TestDepositAttestationAgainstStubbedNode(t *testing.T) {
	header := &types.Header{Number: big.NewInt(10), Difficulty: big.NewInt(0)}
	tx := common.HexToHash("0xabc")
	receipt := func(logs ...*types.Log) *types.Receipt {
		return &types.Receipt{Status: types.ReceiptStatusSuccessful, BlockNumber: big.NewInt(10), BlockHash: header.Hash(), Logs: logs}
	}
	removed := depositLog(stubDepository, 5, common.HexToHash("0x5"), 5)
	removed.Removed = true
	otherTopic := depositLog(stubDepository, 6, common.HexToHash("0x6"), 6)
	otherTopic.Topics[0] = common.HexToHash("0x1234")

	cases := []struct {
		name   string
		stub   stubReader
		status int
		code   string
		msgs   int
	}{
		{name: "two deposits, foreign and removed logs ignored", status: http.StatusOK, msgs: 2, stub: stubReader{
			head: 10, header: header, receipt: receipt(
				depositLog(stubDepository, 1, common.HexToHash("0x1"), 100),
				depositLog(common.HexToAddress(addrC), 2, common.HexToHash("0x2"), 200), // another contract
				removed, otherTopic,
				depositLog(stubDepository, 7, common.HexToHash("0x7"), 700),
			)}},
		{name: "zero confirmations configured means one", status: http.StatusOK, msgs: 1, stub: stubReader{
			head: 10, header: header, receipt: receipt(depositLog(stubDepository, 1, common.HexToHash("0x1"), 1))}},
		{name: "block reorged out between reads", status: http.StatusConflict, code: oracleapi.CodeNotConfirmed, stub: stubReader{
			head: 12, header: &types.Header{Number: big.NewInt(10), Difficulty: big.NewInt(1)},
			receipt: receipt(depositLog(stubDepository, 1, common.HexToHash("0x1"), 1))}},
		{name: "block no longer exists", status: http.StatusConflict, code: oracleapi.CodeNotConfirmed, stub: stubReader{
			head: 12, headerErr: ethereum.NotFound, receipt: receipt(depositLog(stubDepository, 1, common.HexToHash("0x1"), 1))}},
		{name: "known but no receipt yet", status: http.StatusConflict, code: oracleapi.CodeNotConfirmed, stub: stubReader{
			receiptErr: ethereum.NotFound}},
		{name: "pending while the node indexes", status: http.StatusConflict, code: oracleapi.CodeNotConfirmed, stub: stubReader{
			receiptErr: errIndexing, pending: true}},
		{name: "unknown while the node indexes", status: http.StatusServiceUnavailable, code: oracleapi.CodeChainUnavailable, stub: stubReader{
			receiptErr: errIndexing, txErr: errIndexing}},
		{name: "receipt read fails", status: http.StatusServiceUnavailable, code: oracleapi.CodeChainUnavailable, stub: stubReader{
			receiptErr: errors.New("connection reset")}},
		{name: "transaction read fails", status: http.StatusServiceUnavailable, code: oracleapi.CodeChainUnavailable, stub: stubReader{
			receiptErr: ethereum.NotFound, txErr: errors.New("connection reset")}},
		{name: "only foreign logs", status: http.StatusNotFound, code: oracleapi.CodeNoDepositEvents, stub: stubReader{
			head: 10, header: header, receipt: receipt(depositLog(common.HexToAddress(addrC), 1, common.HexToHash("0x1"), 1))}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stub := c.stub
			srv := stubServer(t, &stub, 0)
			msgs, domain, e := attestDeposit(context.Background(), srv, oracleapi.DepositAttestationRequest{ChainID: testChainID, TransactionID: tx}, false)
			if c.status != http.StatusOK {
				require.NotNil(t, e)
				assert.Equal(t, c.status, e.Status, e.Message)
				assert.Equal(t, c.code, e.Code)
				return
			}
			require.Nil(t, e)
			require.Len(t, msgs, c.msgs)
			assert.Equal(t, oracleapi.NewDomain("test", testChainID, stubDepository), domain)
			for _, m := range msgs {
				assert.Equal(t, stubDepository, m.Depository)
				assert.Equal(t, common.HexToAddress(addrA), m.Depositor)
				assert.Equal(t, common.HexToAddress(addrB), m.Currency)
			}
			if c.msgs == 2 {
				assert.Equal(t, []uint64{1, 7}, []uint64{msgs[0].LogIndex, msgs[1].LogIndex})
				assert.Equal(t, "700", msgs[1].Amount.String())
			}
		})
	}
}
