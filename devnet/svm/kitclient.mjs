// kitclient.mjs URL USDC_MINT: @solana/kit against the local chain, the way a web client would use
// it: a v0 SOL transfer signed with kit's signers, sent as base64, followed to "confirmed", then
// the reads a wallet makes. Run by TestKitClient (svm_test.go); exits non-zero on a mismatch.
// KIT_SECRET (environment) is a funded test keypair's 64-byte secret key in base58 (public,
// local only).

import assert from "node:assert/strict";

import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";

const [url, usdcMint] = process.argv.slice(2);
const secret = process.env.KIT_SECRET;
const rpc = createSolanaRpc(url);
const payer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(secret));
const to = await generateKeyPairSigner();
const amount = 3_000_000_000n;

const before = (await rpc.getBalance(payer.address).send()).value;
const { value: latest } = await rpc.getLatestBlockhash().send();
const data = new Uint8Array(12);
new DataView(data.buffer).setUint32(0, 2, true); // SystemInstruction::Transfer
new DataView(data.buffer).setBigUint64(4, amount, true);
const transfer = {
  programAddress: address("11111111111111111111111111111111"),
  accounts: [
    { address: payer.address, role: AccountRole.WRITABLE_SIGNER, signer: payer },
    { address: to.address, role: AccountRole.WRITABLE },
  ],
  data,
};
const tx = await pipe(
  createTransactionMessage({ version: 0 }),
  (m) => setTransactionMessageFeePayerSigner(payer, m),
  (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
  (m) => appendTransactionMessageInstruction(transfer, m),
  (m) => signTransactionMessageWithSigners(m),
);
const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: "base64" }).send();
assert.equal(signature, getSignatureFromTransaction(tx));

let status = null;
for (let i = 0; i < 400 && status?.confirmationStatus !== "confirmed" && status?.confirmationStatus !== "finalized"; i++) {
  await new Promise((r) => setTimeout(r, 25));
  [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
}
assert.ok(status !== null && status.err === null, `status ${JSON.stringify(status, (_, v) => (typeof v === "bigint" ? String(v) : v))}`);

assert.equal((await rpc.getBalance(to.address).send()).value, amount);
assert.equal(before - (await rpc.getBalance(payer.address).send()).value, amount + 5000n);
const got = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, encoding: "json" }).send();
assert.equal(got.version, 0);
assert.equal(got.meta.fee, 5000n);
assert.equal(got.transaction.signatures[0], signature);
assert.equal(got.meta.postBalances[1], amount);

const mint = await rpc.getAccountInfo(address(usdcMint), { encoding: "jsonParsed" }).send();
assert.equal(mint.value.data.parsed.type, "mint");
assert.equal(mint.value.data.parsed.info.decimals, 6);
const owned = await rpc.getTokenAccountsByOwner(payer.address, { mint: address(usdcMint) }, { encoding: "jsonParsed" }).send();
assert.equal(owned.value.length, 1);
assert.equal(owned.value[0].account.data.parsed.info.tokenAmount.decimals, 6);
const epoch = await rpc.getEpochInfo().send();
assert.ok(epoch.absoluteSlot > 0n);

console.log(`ok ${signature}`);
