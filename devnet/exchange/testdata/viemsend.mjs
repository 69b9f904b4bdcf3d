// viemsend.mjs signs a sendAsset with viem, as a wallet does for the public SDK's perps
// withdrawal step, and posts it to the exchange: node viemsend.mjs <exchange URL>, with the
// wallet's key in WALLET_KEY and the transfer in DESTINATION, AMOUNT, NONCE and CHAIN_ID (the
// wallet's chain). viem comes from the e2e suite's pinned packages (E2E_DIR, `make e2e-deps`).
// It prints the exchange's answer as one JSON line.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.E2E_DIR, "package.json"));
const { privateKeyToAccount } = require("viem/accounts");
const { parseSignature } = require("viem");

const [url] = process.argv.slice(2);
const account = privateKeyToAccount(process.env.WALLET_KEY);
const chainId = Number(process.env.CHAIN_ID);
const nonce = Number(process.env.NONCE);

// The quote's step data: action.parameters, nonce, eip712Types and eip712PrimaryType.
const parameters = {
  exchangeChain: "Mainnet",
  destination: process.env.DESTINATION,
  sourceDex: "",
  destinationDex: "",
  token: process.env.TOKEN,
  amount: process.env.AMOUNT,
  fromSubAccount: "",
  nonce,
};
const eip712PrimaryType = "ExchangeTransaction:SendAsset";
const eip712Types = {
  [eip712PrimaryType]: [
    { name: "exchangeChain", type: "string" },
    { name: "destination", type: "string" },
    { name: "sourceDex", type: "string" },
    { name: "destinationDex", type: "string" },
    { name: "token", type: "string" },
    { name: "amount", type: "string" },
    { name: "fromSubAccount", type: "string" },
    { name: "nonce", type: "uint64" },
  ],
};

// As the SDK signs it: the message is the parameters plus type and signatureChainId, on the
// wallet's chain.
const signatureChainId = "0x" + chainId.toString(16);
const action = { type: "sendAsset", signatureChainId, ...parameters };
const signature = await account.signTypedData({
  domain: { name: "ExchangeSignTransaction", version: "1", chainId, verifyingContract: "0x0000000000000000000000000000000000000000" },
  types: eip712Types,
  primaryType: eip712PrimaryType,
  message: action,
});
const { r, s, v } = parseSignature(signature);

const res = await fetch(url + "/exchange", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ action, nonce, signature: { r, s, v: Number(v) } }),
});
if (res.status !== 200) {
  console.log(JSON.stringify({ httpStatus: res.status, body: await res.text() }));
  process.exit(1);
}
console.log(JSON.stringify(await res.json()));
