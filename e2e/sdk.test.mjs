// The public SDK (@relayprotocol/relay-sdk, unmodified) driving intentd on the devnet with a viem
// wallet, as an integrator's app would: chains from GET /chains, quotes from POST /quote/v2,
// steps executed by the SDK's own executor (approve, deposit, the /transactions/index hint, the
// status polling). e2e/sdk_test.go starts the engine and runs this file with the environment
// below; `node --test` runs the cases one after another.
import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'

import { LogLevel, createClient, getClient } from '@relayprotocol/relay-sdk'
import { configureDynamicChains } from '@relayprotocol/relay-sdk/chain-utils'
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, parseEther, parseUnits, zeroAddress } from 'viem'
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'

const env = (name) => {
  const v = process.env[name]
  if (!v) throw new Error(`${name} is not set: run this suite through e2e/sdk_test.go (make test)`)
  return v
}
const API = env('INTENTD_API_URL')
const RPC = { 31337: env('INTENTD_RPC_31337'), 31338: env('INTENTD_RPC_31338') }
const USDC = env('INTENTD_USDC')
const DEPOSITORY = env('INTENTD_DEPOSITORY')
const API_KEY = env('INTENTD_API_KEY')
// The devnet funds the first ten accounts of the standard test mnemonic with ETH and USDC.
const MNEMONIC = 'test test test test test test test test test test test junk'
const account = (i) => mnemonicToAccount(MNEMONIC, { addressIndex: i })
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address

const chainOf = (id) => {
  const c = getClient().chains.find((c) => c.id === id)
  assert.ok(c, `chain ${id} is missing from GET /chains`)
  return c
}
const walletOn = (acct, chainId) =>
  createWalletClient({ account: acct, chain: chainOf(chainId).viemChain, transport: http(RPC[chainId]) })
const reader = (chainId) => createPublicClient({ chain: chainOf(chainId).viemChain, transport: http(RPC[chainId]) })

async function balanceOf(chainId, currency, owner) {
  if (currency === zeroAddress) return reader(chainId).getBalance({ address: owner })
  return reader(chainId).readContract({ address: currency, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
}

async function status(requestId) {
  const res = await fetch(`${API}/intents/status/v3?requestId=${requestId}`)
  assert.equal(res.status, 200)
  return res.json()
}

// bridge quotes a route for acct and has the SDK execute it, then checks what the recipient got.
async function bridge({ acct, from, to, currency, toCurrency, amount, wantSteps }) {
  const recipient = freshAddress()
  const wallet = walletOn(acct, from)
  const quote = await getClient().actions.getQuote({
    chainId: from, toChainId: to, currency, toCurrency, amount: amount.toString(),
    tradeType: 'EXACT_INPUT', wallet, user: acct.address, recipient,
  })
  assert.deepEqual(quote.steps.map((s) => s.id), wantSteps)
  const minimum = BigInt(quote.details.currencyOut.minimumAmount)
  assert.ok(minimum > 0n, 'the quote promises a positive minimum')
  const before = await balanceOf(to, toCurrency, recipient)

  const progress = []
  const { data } = await getClient().actions.execute({ quote, wallet, onProgress: (p) => progress.push(p) })

  const got = (await balanceOf(to, toCurrency, recipient)) - before
  assert.ok(got >= minimum, `recipient got ${got}, the quote's minimum is ${minimum}`)
  for (const step of data.steps) {
    for (const item of step.items) assert.equal(item.status, 'complete', `step ${step.id} is ${item.status}`)
  }
  const deposit = data.steps.find((s) => s.id === 'deposit').items[0]
  assert.equal(deposit.checkStatus, 'success', 'the SDK saw the request succeed')
  assert.ok(progress.some((p) => p.txHashes?.length > 0), 'the SDK reported the transactions')
  const requestId = quote.steps[0].requestId
  const st = await status(requestId)
  assert.equal(st.status, 'success')
  assert.equal(st.txHashes.length, 1, 'one fill')
  // The finished request, read back as an integrator would: GET /requests/v3 by id.
  const res = await fetch(`${API}/requests/v3?id=${requestId}`, { headers: { 'x-api-key': API_KEY } })
  assert.equal(res.status, 200)
  const { requests } = await res.json()
  assert.equal(requests.length, 1, 'the request is found by id')
  const rec = requests[0]
  assert.equal(rec.id, requestId)
  assert.equal(rec.status, 'success')
  assert.equal(rec.user.toLowerCase(), acct.address.toLowerCase())
  assert.equal(rec.recipient.toLowerCase(), recipient.toLowerCase())
  assert.equal(rec.data.outTxs.length, 1, 'one fill item')
  assert.equal(rec.data.outTxs[0].txHash, st.txHashes[0])
  assert.equal(rec.data.outTxs[0].status, 'success')
  assert.ok(BigInt(rec.data.outTxs[0].fee) > 0n, 'the fill item carries its fee')
  assert.deepEqual(rec.data.inTxs.map((t) => t.txHash), st.inTxHashes)
  assert.equal(rec.data.failReason, null, 'failReason is null where the status says N/A')
  return { quote, requestId, data }
}

// waitForStatus polls the status endpoint, as an integrator's app does after a plain transfer
// (the SDK's executor has no step to run for it), until the request ends.
async function waitForStatus(requestId, { timeoutMs = 90_000 } = {}) {
  const end = Date.now() + timeoutMs
  for (;;) {
    const st = await status(requestId)
    if (['success', 'failure', 'refund'].includes(st.status)) return st
    if (Date.now() > end) assert.fail(`request ${requestId} still ${st.status} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

// depositAddressBridge quotes a strict deposit address through the SDK's quote call (the
// quote's extra fields ride in `options`, which the SDK spreads into the POST /quote/v2 body)
// and pays it as an exchange's withdrawal or a hardware wallet's send would: pay(item) sends
// the step's one transaction as a plain transfer, no call of the depository. It then polls the
// status to success and reads the record back.
async function depositAddressBridge({ acct, currency, toCurrency, amount, pay }) {
  const recipient = freshAddress()
  const quote = await getClient().actions.getQuote({
    chainId: 31337, toChainId: 31338, currency, toCurrency, amount: amount.toString(), tradeType: 'EXACT_INPUT',
    user: acct.address, recipient,
    options: { useDepositAddress: true, strict: true, refundTo: acct.address },
  })
  assert.deepEqual(quote.steps.map((s) => s.id), ['deposit'], 'one deposit step, no approve')
  const step = quote.steps[0]
  assert.match(step.depositAddress, /^0x[0-9a-fA-F]{40}$/, 'the step names the deposit address')
  assert.match(step.depositAddressId, /^0x[0-9a-f]{64}$/, 'the step names the deposit address id')
  assert.equal(step.items.length, 1)
  const item = step.items[0]
  const out = BigInt(quote.details.currencyOut.amount)
  assert.ok(out > 0n, 'the quote promises a positive output')
  const before = await balanceOf(31338, toCurrency, recipient)

  const hash = await pay(item, step.depositAddress)
  const receipt = await reader(31337).waitForTransactionReceipt({ hash })
  assert.equal(receipt.status, 'success', 'the plain transfer is mined')

  const st = await waitForStatus(step.requestId)
  assert.equal(st.status, 'success', `the request ended ${st.status} ${st.failReason ?? ''}`)
  assert.equal(st.txHashes.length, 1, 'one fill')
  const got = (await balanceOf(31338, toCurrency, recipient)) - before
  assert.equal(got, out, 'the recipient got exactly the quoted output, once')
  // The record, as an integrator reads it: the address, strict, the transfer that paid it.
  const res = await fetch(`${API}/requests/v3?id=${step.requestId}`, { headers: { 'x-api-key': API_KEY } })
  assert.equal(res.status, 200)
  const { requests } = await res.json()
  assert.equal(requests.length, 1)
  const rec = requests[0]
  assert.equal(rec.status, 'success')
  assert.ok(rec.features.includes('deposit_address'))
  assert.equal(rec.depositAddress.address.toLowerCase(), step.depositAddress.toLowerCase())
  assert.equal(rec.depositAddress.type, 'strict')
  assert.equal(rec.depositAddress.depositTxHash.toLowerCase(), hash.toLowerCase(), 'the record names the plain transfer')
  assert.equal(rec.depositAddress.depositor.toLowerCase(), acct.address.toLowerCase())
  assert.equal(rec.refundTo.toLowerCase(), acct.address.toLowerCase())
  assert.equal(rec.data.outTxs.length, 1, 'one fill item')
  return { quote, rec }
}

describe('the public SDK against intentd on the devnet', { timeout: 180_000 }, () => {
  before(async () => {
    createClient({
      baseApiUrl: API,
      // The devnet makes blocks every 250 ms; the SDK's default poll is every 5 s.
      pollingInterval: 250,
      maxPollingAttemptsBeforeTimeout: 240,
      logLevel: LogLevel.None,
    })
    await configureDynamicChains()
  })
  it('configures each devnet chain from GET /chains (configureDynamicChains)', () => {
    for (const id of [31337, 31338]) {
      const c = chainOf(id)
      // viem knows 31337 (Hardhat) and keeps its own chain for it; the SDK's fields are ours.
      assert.equal(c.viemChain.id, id)
      assert.equal(c.httpRpcUrl, RPC[id])
      assert.equal(c.displayName, id === 31337 ? 'Devnet A' : 'Devnet B')
      assert.deepEqual([c.currency.symbol, c.currency.decimals], ['ETH', 18])
      assert.equal(c.vmType, 'evm')
      assert.equal(c.depositEnabled, true)
      assert.equal(c.protocol.v2.depository.toLowerCase(), DEPOSITORY.toLowerCase())
      assert.deepEqual(c.solverCurrencies.map((x) => x.symbol), ['ETH', 'USDC'])
      assert.equal(c.erc20Currencies[0].address.toLowerCase(), USDC.toLowerCase())
      assert.match(c.icon.light, /^https:/, 'iconUrl null: the SDK falls back to its own icon')
    }
  })

  it('bridges native ETH 31337 -> 31338 to success', async () => {
    await bridge({ acct: account(1), from: 31337, to: 31338, currency: zeroAddress, toCurrency: zeroAddress,
      amount: parseEther('0.5'), wantSteps: ['deposit'] })
  })

  it('bridges USDC 31337 -> 31338 from a wallet without allowance: approve, then deposit', async () => {
    const acct = account(2)
    const allowance = await reader(31337).readContract({ address: USDC, abi: erc20Abi, functionName: 'allowance',
      args: [acct.address, DEPOSITORY] })
    assert.equal(allowance, 0n, 'the wallet starts without allowance')
    await bridge({ acct, from: 31337, to: 31338, currency: USDC, toCurrency: USDC,
      amount: parseUnits('25', 6), wantSteps: ['approve', 'deposit'] })
  })

  it('swaps ETH on 31337 to USDC on 31338 to success', async () => {
    await bridge({ acct: account(3), from: 31337, to: 31338, currency: zeroAddress, toCurrency: USDC,
      amount: parseEther('0.3'), wantSteps: ['deposit'] })
  })

  it('reports an underpaid deposit as a refund', async () => {
    const acct = account(4)
    const wallet = walletOn(acct, 31337)
    const quote = await getClient().actions.getQuote({
      chainId: 31337, toChainId: 31338, currency: zeroAddress, toCurrency: zeroAddress,
      amount: parseEther('0.2').toString(), tradeType: 'EXACT_INPUT', wallet, user: acct.address, recipient: freshAddress(),
    })
    // The wallet sends half of what the deposit step asks: the engine must refund it.
    const item = quote.steps.find((s) => s.id === 'deposit').items[0]
    item.data.value = (BigInt(item.data.value) / 2n).toString()
    const progress = []
    await assert.rejects(
      getClient().actions.execute({ quote, wallet, onProgress: (p) => progress.push(p) }),
      (err) => /Refunded/.test(err.message),
      'the SDK reports the request as refunded',
    )
    assert.ok(progress.some((p) => p.refunded === true), 'onProgress saw refunded: true')
    const st = await status(quote.steps[0].requestId)
    assert.equal(st.status, 'refund')
    assert.equal(st.failReason, 'DEPOSITED_AMOUNT_TOO_LOW_TO_FILL')
  })

  // Issue 35, point 7: "a case in e2e/ that quotes a deposit address through the public SDK's
  // quote call and pays it from a viem wallet with a plain transfer, to success".
  it('quotes a strict deposit address through the SDK and pays it with a plain ETH transfer to success', async () => {
    const acct = account(6)
    await depositAddressBridge({ acct, currency: zeroAddress, toCurrency: zeroAddress, amount: parseEther('0.25'),
      pay: async (item, address) => {
        // The step is the plain transfer itself: to the address, the amount, no calldata.
        assert.equal(item.data.to.toLowerCase(), address.toLowerCase())
        assert.equal(item.data.data, '0x')
        return walletOn(acct, 31337).sendTransaction({ to: address, value: BigInt(item.data.value), data: '0x' })
      } })
  })

  it('quotes a strict USDC deposit address through the SDK and pays it with a plain ERC-20 transfer to success', async () => {
    const acct = account(9)
    const amount = parseUnits('20', 6)
    await depositAddressBridge({ acct, currency: USDC, toCurrency: USDC, amount,
      pay: async (item, address) => {
        // The step is the token's transfer to the address; the wallet sends the same call itself.
        assert.equal(item.data.to.toLowerCase(), USDC.toLowerCase())
        assert.equal(BigInt(item.data.value ?? '0'), 0n)
        assert.equal(item.data.data.toLowerCase(), encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [address, amount] }).toLowerCase())
        return walletOn(acct, 31337).writeContract({ address: USDC, abi: erc20Abi, functionName: 'transfer', args: [address, amount] })
      } })
  })

  it("surfaces a quote error with the spec's {message, errorCode}", async () => {
    const acct = account(5)
    await assert.rejects(
      getClient().actions.getQuote({
        chainId: 31337, toChainId: 31338, currency: zeroAddress,
        toCurrency: '0x000000000000000000000000000000000000dEaD', // not a currency of chain 31338
        amount: parseEther('0.1').toString(), tradeType: 'EXACT_INPUT', user: acct.address, recipient: acct.address,
      }),
      (err) => {
        assert.equal(err.name, 'APIError')
        assert.equal(err.rawError?.errorCode, 'UNSUPPORTED_CURRENCY')
        assert.equal(typeof err.rawError?.message, 'string')
        assert.equal(err.message, err.rawError.message)
        return true
      },
    )
  })
})
