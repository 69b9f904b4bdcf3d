package evm

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/intentd/intentd/intent"
)

// A gasless request's call in the EVM family's terms (intent.RelayCall, POST /execute): its
// authorizations as go-ethereum's, and its simulation before the API accepts it.

// AuthorizationsOf converts a relayed call's EIP-7702 authorizations (setCodeAuthorization),
// refusing one whose address, yParity, r or s is not what the wire allows.
func AuthorizationsOf(list []intent.Authorization) ([]types.SetCodeAuthorization, error) {
	out := make([]types.SetCodeAuthorization, 0, len(list))
	for i, a := range list {
		auth, err := setCodeAuthorization(a)
		if err != nil {
			return nil, fmt.Errorf("authorizationList[%d]: %w", i, err)
		}
		out = append(out, auth)
	}
	return out, nil
}

// SimCallOf is the simulation of a relayed call as the relayer would send it: from is the
// relayer (any account: a simulation pays no gas).
func SimCallOf(from common.Address, call intent.RelayCall) (SimCall, error) {
	if !common.IsHexAddress(call.To) {
		return SimCall{}, fmt.Errorf("to %q is not an address", call.To)
	}
	data, err := hexutil.Decode(orEmptyHex(call.Data))
	if err != nil {
		return SimCall{}, fmt.Errorf("data: %w", err)
	}
	value := new(big.Int)
	if call.Value != "" {
		if _, ok := value.SetString(call.Value, 10); !ok || value.Sign() < 0 || value.BitLen() > 256 {
			return SimCall{}, fmt.Errorf("value %q is not a wei amount", call.Value)
		}
	}
	auths, err := AuthorizationsOf(call.AuthorizationList)
	if err != nil {
		return SimCall{}, err
	}
	return SimCall{From: from, To: common.HexToAddress(call.To), Data: data, Value: value, AuthorizationList: auths}, nil
}

// SimulateRelay simulates a relayed call (from the zero address: the relayer's key is the
// worker's, and a simulation pays no gas) and returns the decoded details of its failure, nil
// when it would succeed. The call must be valid (SimCallOf).
func (c *Client) SimulateRelay(ctx context.Context, call intent.RelayCall) (*RevertDetails, error) {
	sim, err := SimCallOf(common.Address{}, call)
	if err != nil {
		return nil, err
	}
	return c.SimulateCall(ctx, sim)
}
