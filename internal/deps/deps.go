// Package deps pins the modules the project is built from while its packages are being written.
package deps

import (
	_ "github.com/cenkalti/backoff/v4"
	_ "github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	_ "github.com/ethereum/go-ethereum/ethclient"
	_ "github.com/ethereum/go-ethereum/ethclient/simulated"
	_ "github.com/ethereum/go-ethereum/node"
	_ "github.com/ethereum/go-ethereum/signer/core/apitypes"
	_ "github.com/gagliardetto/solana-go"
	_ "github.com/gin-gonic/gin"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/shopspring/decimal"
	_ "github.com/temporalio/ui-server/v2/server"
	_ "go.temporal.io/sdk/client"
	_ "go.temporal.io/sdk/testsuite"
	_ "go.temporal.io/sdk/worker"
	_ "go.temporal.io/server/temporal"
	_ "go.temporal.io/server/temporaltest"
	_ "go.temporal.io/server/schema/sqlite"
	_ "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	_ "github.com/stretchr/testify/require"
	_ "golang.org/x/time/rate"
)
