// The browser app of e2e/browser.test.mjs, bundled with esbuild: the public SDK, unmodified,
// with its websocket option pointed at intentd's stream, executing a bridge from an in-page
// viem wallet. window.bridge(config) resolves with what the SDK reported.
import { LogLevel, createClient, getClient } from '@relayprotocol/relay-sdk'
import { configureDynamicChains } from '@relayprotocol/relay-sdk/chain-utils'
import { createWalletClient, http, parseEther, zeroAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

window.bridge = async ({ api, ws, rpc, key }) => {
  createClient({
    baseApiUrl: api,
    pollingInterval: 250,
    maxPollingAttemptsBeforeTimeout: 240,
    logLevel: LogLevel.None,
    websocket: { enabled: true, url: ws },
  })
  await configureDynamicChains()
  const acct = privateKeyToAccount(key)
  const chain = getClient().chains.find((c) => c.id === 31337)
  const wallet = createWalletClient({ account: acct, chain: chain.viemChain, transport: http(rpc) })
  const quote = await getClient().actions.getQuote({
    chainId: 31337, toChainId: 31338, currency: zeroAddress, toCurrency: zeroAddress,
    amount: parseEther('0.3').toString(), tradeType: 'EXACT_INPUT', wallet, user: acct.address, recipient: acct.address,
  })
  const { data } = await getClient().actions.execute({ quote, wallet, onProgress: () => {} })
  const deposit = data.steps.find((s) => s.id === 'deposit').items[0]
  return { requestId: quote.steps[0].requestId, status: deposit.status, checkStatus: deposit.checkStatus }
}
