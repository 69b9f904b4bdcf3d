// The local Solana chain of intentd's devnet: one LiteSVM (the Solana runtime as a library, with
// the system, SPL Token, Token-2022, associated token account, memo and address lookup table
// programs) behind a Solana JSON-RPC 2.0 server of ours on HTTP.
//
// It is a local runtime, not a validator: one process, state in memory only (a restart is a new
// chain), no consensus, no gossip, no leader schedule, no websocket subscriptions. It keeps the
// parts of a chain that clients depend on:
//   - a slot every SLOT_MS (400 ms by default), each with its own blockhash; a blockhash is valid
//     for 150 blocks (MAX_PROCESSING_AGE) and a transaction that names an older or unknown one
//     is refused with the real "Blockhash not found";
//   - commitment by age: a transaction is processed in the slot it lands in (never slot 0, the
//     genesis block), confirmed one slot later and finalized 32 slots later (a root's usual
//     distance), and getSlot, getBlockHeight
//     and getLatestBlockhash answer for the commitment asked (account reads always show the
//     latest state: there are no forks to hide);
//   - the RPC's shapes and errors: {context: {slot}, value} where the real one has it, -32002 for
//     a failed preflight with its logs, the 1232-byte transaction limit, a failed transaction
//     recorded with its error and fee when preflight is skipped, a transaction with a dead
//     blockhash dropped without a trace then, as a leader drops it;
//   - a USDC mint (6 decimals) at a fixed address and funded test keypairs, all derived from
//     fixed, public seeds (the same derivation as devnet/svm/keys.go).
//
// Usage: node server.mjs [--host 127.0.0.1] [--port 8899] [--slot-ms 400] [--quiet] [--watch-stdin]
// (or SOLANA_HOST, SOLANA_PORT, SOLANA_SLOT_MS). Port 0 picks a free port. Once it serves, it
// prints one line "ready {json}" on stdout (the URL, the genesis hash and the funded addresses) and, unless
// --quiet, a summary on stderr. --watch-stdin exits when stdin closes: the Go side
// (devnet/svm) holds the other end, so the chain never outlives the process that started it.
//
// Every key here is public knowledge, for a local chain only.

import crypto from "node:crypto";
import http from "node:http";
import { readFileSync } from "node:fs";

import { LiteSVM } from "litesvm";
import { getBase58Decoder, getBase58Encoder, getProgramDerivedAddress } from "@solana/kit";

const nodeMajor = Number(process.versions.node.split(".")[0]);
if (nodeMajor < 20) {
  process.stderr.write(`solana localnet: Node.js ${process.versions.node} is too old: litesvm needs Node.js 20 or later\n`);
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// Configuration

function flag(name) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  return v === undefined || v.startsWith("--") ? "" : v;
}
const has = (name) => process.argv.includes(`--${name}`);

const HOST = flag("host") ?? process.env.SOLANA_HOST ?? "127.0.0.1";
const PORT = Number(flag("port") ?? process.env.SOLANA_PORT ?? 8899);
const SLOT_MS = Number(flag("slot-ms") ?? process.env.SOLANA_SLOT_MS ?? 400);
if (!Number.isInteger(PORT) || PORT < 0 || PORT > 65535) fail(`bad port ${PORT}`);
if (!Number.isFinite(SLOT_MS) || SLOT_MS < 1) fail(`bad slot time ${SLOT_MS} ms`);

function fail(msg) {
  process.stderr.write(`solana localnet: ${msg}\n`);
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// Chain constants (the real chain's)

const LAMPORTS_PER_SOL = 1_000_000_000n;
const MAX_PROCESSING_AGE = 150; // blocks a blockhash stays valid for
const MAX_RECENT_BLOCKHASHES = 300; // blockhashes the bank keeps; also the status cache's reach
const FINALIZED_DEPTH = 32; // how far the root trails the tip
const SLOTS_PER_EPOCH = 432_000;
const PACKET_DATA_SIZE = 1232; // the wire limit of a transaction
const MAX_BASE58_SIZE = 1683; // the RPC's limits on the encoded forms of PACKET_DATA_SIZE bytes
const MAX_BASE64_SIZE = 1644;
const MAX_SIGNATURE_STATUSES = 256;
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURES_FOR_ADDRESS = 1000;
const MAX_BASE58_BYTES = 128;
const RENT_EPOCH_EXEMPT = 18446744073709551615n; // what the RPC shows for every account now
const TX_TYPE_NAME = "solana_transaction::versioned::VersionedTransaction";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const MEMO_PROGRAMS = new Set(["MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr", "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo"]);
const ADDRESS_LOOKUP_TABLE_PROGRAM = "AddressLookupTab1e1111111111111111111111111";

// ---------------------------------------------------------------------------------------------
// Encodings

const b58decoder = getBase58Decoder(); // bytes -> base58 string
const b58encoder = getBase58Encoder(); // base58 string -> bytes
const toB58 = (bytes) => b58decoder.decode(bytes);
const fromB58 = (s) => new Uint8Array(b58encoder.encode(s));
const toB64 = (bytes) => Buffer.from(bytes).toString("base64");

const sha256 = (...parts) => new Uint8Array(crypto.createHash("sha256").update(Buffer.concat(parts.map((p) => Buffer.from(p)))).digest());

function u64le(n) {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}

// A JSON text with bigints as plain numbers: lamports and token amounts are u64s, beyond what a
// JS number holds exactly, and the real RPC writes them as numbers.
const BIG = `__u64_${crypto.randomBytes(6).toString("hex")}__`;
const BIG_RE = new RegExp(`"${BIG}(-?\\d+)"`, "g");
function stringify(v) {
  return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? BIG + x.toString() : x)).replace(BIG_RE, "$1");
}

// ---------------------------------------------------------------------------------------------
// Keys: every one derived from a fixed, public seed (devnet/svm/keys.go derives the same)

const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");

function keypairFromSeed(seed) {
  const privateKey = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, Buffer.from(seed)]), format: "der", type: "pkcs8" });
  const pub = new Uint8Array(crypto.createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(12));
  return { privateKey, pubkey: pub, address: toB58(pub) };
}

// roleKeypair is the keypair whose ed25519 seed is sha256("intentd/devnet/solana/<role>").
const roleKeypair = (role) => keypairFromSeed(sha256(Buffer.from(`intentd/devnet/solana/${role}`)));

// The standard test mnemonic of Hardhat and Anvil, which the EVM devnet funds too; its Solana
// accounts are at Phantom's and Solflare's path m/44'/501'/i'/0' (SLIP-0010 ed25519), so a
// wallet that imports the mnemonic finds them.
const TEST_MNEMONIC = "test test test test test test test test test test test junk";
const TEST_ACCOUNT_COUNT = 10;
const HARDENED = 0x80000000;

function slip10Ed25519(seed, path) {
  let I = crypto.createHmac("sha512", "ed25519 seed").update(seed).digest();
  let key = I.subarray(0, 32);
  let chain = I.subarray(32);
  for (const index of path) {
    const data = Buffer.alloc(37);
    data[0] = 0;
    Buffer.from(key).copy(data, 1);
    data.writeUInt32BE((index | HARDENED) >>> 0, 33);
    I = crypto.createHmac("sha512", chain).update(data).digest();
    key = I.subarray(0, 32);
    chain = I.subarray(32);
  }
  return new Uint8Array(key);
}

function testKeypairs() {
  const seed = crypto.pbkdf2Sync(TEST_MNEMONIC, "mnemonic", 2048, 64, "sha512");
  const out = [];
  for (let i = 0; i < TEST_ACCOUNT_COUNT; i++) out.push(keypairFromSeed(slip10Ed25519(seed, [44, 501, i, 0])));
  return out;
}

const DEPLOYER = roleKeypair("deployer"); // the USDC mint's mint and freeze authority
const SOLVER = roleKeypair("solver");
const FAUCET = roleKeypair("faucet"); // pays requestAirdrop
const USDC_MINT = roleKeypair("usdc-mint"); // its address is the mint's
const TESTS = testKeypairs();

const USDC_DECIMALS = 6;
const FAUCET_SOL = 1_000_000_000n;
const DEPLOYER_SOL = 1_000n;
const SOLVER_SOL = 10_000n;
const TEST_ACCOUNT_SOL = 1_000n;
const SOLVER_USDC = 10_000_000n * 1_000_000n;
const TEST_ACCOUNT_USDC = 1_000_000n * 1_000_000n;
// wSOL: SOL in an SPL Token account of the native mint (9 decimals), in lamports.
const NATIVE_MINT = "So11111111111111111111111111111111111111112";
const WSOL_DECIMALS = 9;
const SOLVER_WSOL = 1_000n * LAMPORTS_PER_SOL;
const TEST_ACCOUNT_WSOL = 100n * LAMPORTS_PER_SOL;

// ---------------------------------------------------------------------------------------------
// The runtime

// LiteSVM's own blockhash check accepts only its latest blockhash; the chain keeps 150 blocks'
// worth valid, so the check is ours (checkBlockhash) and LiteSVM's is on only for a durable
// nonce transaction, whose nonce it checks.
const svm = new LiteSVM().withBlockhashCheck(false);
// The native binding takes the wire bytes as they are; the wrapper's methods would decode and
// re-encode them. Its API is pinned with the package (package-lock.json).
const native = svm.inner;

const genesisHash = crypto.randomBytes(32); // a restart is a new chain, and says so
let slot = 0;
let transactionCount = 0n;
const blockhashes = new Map(); // base58 blockhash -> block height it was made at
const slotBlockhash = []; // slot -> base58 blockhash (the last MAX_RECENT_BLOCKHASHES)
const slotTimes = []; // slot -> unix seconds
const slotHashes = []; // the SlotHashes sysvar: {slot, hash} of the slots before this one, newest first
const MAX_SLOT_HASHES = 512;
const startedAt = Math.floor(Date.now() / 1000);

function blockhashOf(s) {
  return toB58(sha256(genesisHash, u64le(s)));
}

function enterSlot(s) {
  const bh = blockhashOf(s);
  blockhashes.set(bh, s);
  slotBlockhash[s] = bh;
  slotTimes[s] = Math.floor(Date.now() / 1000);
  const old = s - MAX_RECENT_BLOCKHASHES;
  if (old >= 0 && slotBlockhash[old] !== undefined) {
    blockhashes.delete(slotBlockhash[old]);
    slotBlockhash[old] = undefined;
  }
  // The SlotHashes sysvar lists the slots before this one, as a bank's does: programs check
  // "recent" slots against it (the address lookup table program, creating a table).
  if (s > 0) {
    slotHashes.unshift({ slot: BigInt(s - 1), hash: slotBlockhash[s - 1] ?? blockhashOf(s - 1) });
    if (slotHashes.length > MAX_SLOT_HASHES) slotHashes.length = MAX_SLOT_HASHES;
    svm.setSlotHashes(slotHashes);
  }
  // LiteSVM's latest blockhash moves too: a durable nonce advanced in this slot takes it.
  svm.expireBlockhash();
  const clock = svm.getClock();
  clock.slot = BigInt(s);
  clock.epoch = BigInt(Math.floor(s / SLOTS_PER_EPOCH));
  clock.unixTimestamp = BigInt(slotTimes[s]);
  if (s === 0) clock.epochStartTimestamp = BigInt(slotTimes[s]);
  svm.setClock(clock);
}

// Every slot has a block here, so the block height is the slot.
const blockHeight = (s) => s;

function commitmentSlot(commitment) {
  switch (commitment ?? "finalized") {
    case "processed":
    case "recent":
    case "single":
      return slot;
    case "confirmed":
    case "singleGossip":
      return Math.max(0, slot - 1);
    case "finalized":
    case "max":
    case "root":
      return Math.max(0, slot - FINALIZED_DEPTH);
    default:
      throw invalidParams(`Invalid params: unknown variant \`${commitment}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\`.`);
  }
}

function isBlockhashValid(bh) {
  const h = blockhashes.get(bh);
  return h !== undefined && blockHeight(slot) <= h + MAX_PROCESSING_AGE;
}

// ---------------------------------------------------------------------------------------------
// Accounts

function account(addr) {
  const a = native.getAccount(fromB58(addr));
  if (a === null) return null;
  return { lamports: a.lamports(), owner: toB58(a.owner()), data: a.data(), executable: a.executable() };
}

function setAccount(addr, lamports, owner, data, executable = false) {
  svm.setAccount({ address: addr, lamports, programAddress: owner, data, executable });
}

const isTokenProgram = (p) => p === TOKEN_PROGRAM || p === TOKEN_2022_PROGRAM;

// Token accounts are 165 bytes (Token-2022 ones longer, with account type 2 at byte 165); mints
// 82 bytes (Token-2022: type 1 at byte 165).
function tokenAccountState(a) {
  if (a === null || !isTokenProgram(a.owner)) return null;
  const d = a.data;
  if (!(d.length === 165 || (d.length > 165 && a.owner === TOKEN_2022_PROGRAM && d[165] === 2))) return null;
  if (d[108] === 0) return null; // uninitialized
  const v = Buffer.from(d);
  return {
    mint: toB58(d.subarray(0, 32)),
    owner: toB58(d.subarray(32, 64)),
    amount: v.readBigUInt64LE(64),
    delegate: v.readUInt32LE(72) === 1 ? toB58(d.subarray(76, 108)) : null,
    state: d[108], // 1 initialized, 2 frozen
    isNative: v.readUInt32LE(109) === 1 ? v.readBigUInt64LE(113) : null,
    delegatedAmount: v.readBigUInt64LE(121),
    closeAuthority: v.readUInt32LE(129) === 1 ? toB58(d.subarray(133, 165)) : null,
    program: a.owner,
  };
}

function mintState(a) {
  if (a === null || !isTokenProgram(a.owner)) return null;
  const d = a.data;
  if (!(d.length === 82 || (d.length > 165 && a.owner === TOKEN_2022_PROGRAM && d[165] === 1))) return null;
  const v = Buffer.from(d);
  if (d[45] === 0) return null;
  return {
    mintAuthority: v.readUInt32LE(0) === 1 ? toB58(d.subarray(4, 36)) : null,
    supply: v.readBigUInt64LE(36),
    decimals: d[44],
    freezeAuthority: v.readUInt32LE(46) === 1 ? toB58(d.subarray(50, 82)) : null,
  };
}

function mintAccountData({ mintAuthority, supply, decimals, freezeAuthority }) {
  const d = Buffer.alloc(82);
  if (mintAuthority) {
    d.writeUInt32LE(1, 0);
    Buffer.from(fromB58(mintAuthority)).copy(d, 4);
  }
  d.writeBigUInt64LE(supply, 36);
  d[44] = decimals;
  d[45] = 1;
  if (freezeAuthority) {
    d.writeUInt32LE(1, 46);
    Buffer.from(fromB58(freezeAuthority)).copy(d, 50);
  }
  return new Uint8Array(d);
}

// tokenAccountData is an SPL Token account's 165 bytes; a native (wSOL) account gives
// rentReserve, its is_native field (COption<u64> at byte 109), and holds rentReserve + amount
// lamports.
function tokenAccountData(mint, owner, amount, rentReserve = null) {
  const d = Buffer.alloc(165);
  Buffer.from(fromB58(mint)).copy(d, 0);
  Buffer.from(fromB58(owner)).copy(d, 32);
  d.writeBigUInt64LE(amount, 64);
  d[108] = 1; // initialized
  if (rentReserve !== null) {
    d.writeUInt32LE(1, 109);
    d.writeBigUInt64LE(rentReserve, 113);
  }
  return new Uint8Array(d);
}

// uiAmountString is the amount with its decimals, trailing zeros trimmed, as the RPC writes it.
function uiTokenAmount(amount, decimals) {
  let s = amount.toString();
  if (decimals > 0) {
    s = s.padStart(decimals + 1, "0");
    s = `${s.slice(0, -decimals)}.${s.slice(-decimals)}`.replace(/\.?0+$/, "");
  }
  return { amount: amount.toString(), decimals, uiAmount: Number(s), uiAmountString: s };
}

function mintDecimals(mint) {
  const m = mintState(account(mint));
  return m === null ? 0 : m.decimals;
}

async function associatedTokenAddress(owner, mint, program = TOKEN_PROGRAM) {
  const [ata] = await getProgramDerivedAddress({
    programAddress: ATA_PROGRAM,
    seeds: [fromB58(owner), fromB58(program), fromB58(mint)],
  });
  return ata;
}

// ---------------------------------------------------------------------------------------------
// Errors

class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}
const invalidParams = (msg) => new RpcError(-32602, msg);
const invalidParam = (msg) => invalidParams(`Invalid param: ${msg}`);

// The names of LiteSVM's error enums, in their order (litesvm's internal.d.ts), which are the
// real TransactionError and InstructionError variants with their messages (Display).
const TX_ERRORS = [
  ["AccountInUse", "Account in use"],
  ["AccountLoadedTwice", "Account loaded twice"],
  ["AccountNotFound", "Attempt to debit an account but found no record of a prior credit."],
  ["ProgramAccountNotFound", "Attempt to load a program that does not exist"],
  ["InsufficientFundsForFee", "Insufficient funds for fee"],
  ["InvalidAccountForFee", "This account may not be used to pay transaction fees"],
  ["AlreadyProcessed", "This transaction has already been processed"],
  ["BlockhashNotFound", "Blockhash not found"],
  ["CallChainTooDeep", "Loader call chain is too deep"],
  ["MissingSignatureForFee", "Transaction requires a fee but has no signature present"],
  ["InvalidAccountIndex", "Transaction contains an invalid account reference"],
  ["SignatureFailure", "Transaction did not pass signature verification"],
  ["InvalidProgramForExecution", "This program may not be used for executing instructions"],
  ["SanitizeFailure", "Transaction failed to sanitize accounts offsets correctly"],
  ["ClusterMaintenance", "Transactions are currently disabled due to cluster maintenance"],
  ["AccountBorrowOutstanding", "Transaction processing left an account with an outstanding borrowed reference"],
  ["WouldExceedMaxBlockCostLimit", "Transaction would exceed max Block Cost Limit"],
  ["UnsupportedVersion", "Transaction version is unsupported"],
  ["InvalidWritableAccount", "Transaction loads a writable account that cannot be written"],
  ["WouldExceedMaxAccountCostLimit", "Transaction would exceed max account limit within the block"],
  ["WouldExceedAccountDataBlockLimit", "Transaction would exceed account data limit within the block"],
  ["TooManyAccountLocks", "Transaction locked too many accounts"],
  ["AddressLookupTableNotFound", "Transaction loads an address table account that doesn't exist"],
  ["InvalidAddressLookupTableOwner", "Transaction loads an address table account with an invalid owner"],
  ["InvalidAddressLookupTableData", "Transaction loads an address table account with invalid data"],
  ["InvalidAddressLookupTableIndex", "Transaction address table lookup uses an invalid index"],
  ["InvalidRentPayingAccount", "Transaction leaves an account with a lower balance than rent-exempt minimum"],
  ["WouldExceedMaxVoteCostLimit", "Transaction would exceed max Vote Cost Limit"],
  ["WouldExceedAccountDataTotalLimit", "Transaction would exceed total account data limit"],
  ["MaxLoadedAccountsDataSizeExceeded", "Transaction exceeded max loaded accounts data size cap"],
  ["ResanitizationNeeded", "Sanitized transaction differed before/after feature activiation. Needs to be resanitized."],
  ["InvalidLoadedAccountsDataSizeLimit", "LoadedAccountsDataSizeLimit set for transaction must be greater than 0."],
  ["UnbalancedTransaction", "Sum of account balances before and after transaction do not match"],
  ["ProgramCacheHitMaxLimit", "Program cache hit max limit"],
  ["CommitCancelled", "CommitCancelled"],
];
const IX_ERRORS = [
  ["GenericError", "generic instruction error"],
  ["InvalidArgument", "invalid program argument"],
  ["InvalidInstructionData", "invalid instruction data"],
  ["InvalidAccountData", "invalid account data for instruction"],
  ["AccountDataTooSmall", "account data too small for instruction"],
  ["InsufficientFunds", "insufficient funds for instruction"],
  ["IncorrectProgramId", "incorrect program id for instruction"],
  ["MissingRequiredSignature", "missing required signature for instruction"],
  ["AccountAlreadyInitialized", "instruction requires an uninitialized account"],
  ["UninitializedAccount", "instruction requires an initialized account"],
  ["UnbalancedInstruction", "sum of account balances before and after instruction do not match"],
  ["ModifiedProgramId", "instruction illegally modified the program id of an account"],
  ["ExternalAccountLamportSpend", "instruction spent from the balance of an account it does not own"],
  ["ExternalAccountDataModified", "instruction modified data of an account it does not own"],
  ["ReadonlyLamportChange", "instruction changed the balance of a read-only account"],
  ["ReadonlyDataModified", "instruction modified data of a read-only account"],
  ["DuplicateAccountIndex", "instruction contains duplicate accounts"],
  ["ExecutableModified", "instruction changed executable bit of an account"],
  ["RentEpochModified", "instruction modified rent epoch of an account"],
  ["NotEnoughAccountKeys", "insufficient account keys for instruction"],
  ["AccountDataSizeChanged", "program other than the account's owner changed the size of the account data"],
  ["AccountNotExecutable", "instruction expected an executable account"],
  ["AccountBorrowFailed", "instruction tries to borrow reference for an account which is already borrowed"],
  ["AccountBorrowOutstanding", "instruction left account with an outstanding borrowed reference"],
  ["DuplicateAccountOutOfSync", "instruction modifications of multiply-passed account differ"],
  ["InvalidError", "program returned invalid error code"],
  ["ExecutableDataModified", "instruction changed executable accounts data"],
  ["ExecutableLamportChange", "instruction changed the balance of an executable account"],
  ["ExecutableAccountNotRentExempt", "executable accounts must be rent exempt"],
  ["UnsupportedProgramId", "Unsupported program id"],
  ["CallDepth", "Cross-program invocation call depth too deep"],
  ["MissingAccount", "An account required by the instruction is missing"],
  ["ReentrancyNotAllowed", "Cross-program invocation reentrancy not allowed for this instruction"],
  ["MaxSeedLengthExceeded", "Length of the seed is too long for address generation"],
  ["InvalidSeeds", "Provided seeds do not result in a valid address"],
  ["InvalidRealloc", "Failed to reallocate account data"],
  ["ComputationalBudgetExceeded", "Computational budget exceeded"],
  ["PrivilegeEscalation", "Cross-program invocation with unauthorized signer or writable account"],
  ["ProgramEnvironmentSetupFailure", "Failed to create program execution environment"],
  ["ProgramFailedToComplete", "Program failed to complete"],
  ["ProgramFailedToCompile", "Program failed to compile"],
  ["Immutable", "Account is immutable"],
  ["IncorrectAuthority", "Incorrect authority provided"],
  ["AccountNotRentExempt", "An account does not have enough lamports to be rent-exempt"],
  ["InvalidAccountOwner", "Invalid account owner"],
  ["ArithmeticOverflow", "Program arithmetic overflowed"],
  ["UnsupportedSysvar", "Unsupported sysvar"],
  ["IllegalOwner", "Provided owner is not allowed"],
  ["MaxAccountsDataAllocationsExceeded", "Accounts data allocations exceeded the maximum allowed per transaction"],
  ["MaxAccountsExceeded", "Max accounts exceeded"],
  ["MaxInstructionTraceLengthExceeded", "Max instruction trace length exceeded"],
  ["BuiltinProgramsMustConsumeComputeUnits", "Builtin programs must consume compute units"],
  ["BorshIoError", "Failed to serialize or deserialize account data"],
];

// txError turns LiteSVM's error into the RPC's JSON form and its message:
// "BlockhashNotFound", {"InstructionError": [0, {"Custom": 1}]}, and so on.
function txError(e) {
  if (typeof e === "number") {
    const [name, msg] = TX_ERRORS[e] ?? [`Unknown(${e})`, `unknown transaction error ${e}`];
    return { json: name, message: msg };
  }
  switch (e?.constructor?.name) {
    case "TransactionErrorInstructionError": {
      const inner = e.err();
      let json;
      let msg;
      if (typeof inner === "number") {
        const [name, m] = IX_ERRORS[inner] ?? [`Unknown(${inner})`, `unknown instruction error ${inner}`];
        json = name;
        msg = m;
      } else if (inner?.constructor?.name === "InstructionErrorCustom") {
        json = { Custom: inner.code };
        msg = `custom program error: 0x${inner.code.toString(16)}`;
      } else {
        json = { BorshIoError: inner?.msg ?? "" };
        msg = `Failed to serialize or deserialize account data: ${inner?.msg ?? ""}`;
      }
      return { json: { InstructionError: [e.index, json] }, message: `Error processing Instruction ${e.index}: ${msg}` };
    }
    case "TransactionErrorDuplicateInstruction":
      return { json: { DuplicateInstruction: e.index }, message: `Transaction contains a duplicate instruction (${e.index}) that is not allowed` };
    case "TransactionErrorInsufficientFundsForRent":
      return {
        json: { InsufficientFundsForRent: { account_index: e.accountIndex } },
        message: `Transaction results in an account (${e.accountIndex}) with insufficient funds for rent`,
      };
    case "TransactionErrorProgramExecutionTemporarilyRestricted":
      return {
        json: { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } },
        message: `Execution of the program referenced by account at index ${e.accountIndex} is temporarily restricted.`,
      };
    default:
      return { json: String(e), message: String(e) };
  }
}
const namedError = (name) => txError(TX_ERRORS.findIndex(([n]) => n === name));

// ---------------------------------------------------------------------------------------------
// Transactions on the wire (legacy and v0), parsed strictly: the native binding aborts the
// process on bytes it cannot deserialize, so nothing reaches it that this has not read whole.

class WireError extends Error {}

function compactU16(buf, off) {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    if (off + i >= buf.length) throw new WireError("io error: unexpected end of file");
    const b = buf[off + i];
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) {
      if (i > 0 && b === 0) throw new WireError("invalid compact-u16 encoding");
      if (value > 0xffff) throw new WireError("invalid compact-u16 encoding");
      return [value, off + i + 1];
    }
  }
  throw new WireError("invalid compact-u16 encoding");
}

function take(buf, off, n) {
  if (off + n > buf.length) throw new WireError("io error: unexpected end of file");
  return [buf.subarray(off, off + n), off + n];
}

function parseMessage(m) {
  let off = 0;
  let version = "legacy";
  if (m.length < 1) throw new WireError("io error: unexpected end of file");
  if (m[0] & 0x80) {
    version = m[0] & 0x7f;
    if (version !== 0) throw new WireError(`unsupported transaction version ${version}`);
    off = 1;
  }
  let header;
  [header, off] = take(m, off, 3);
  let n;
  [n, off] = compactU16(m, off);
  const staticKeys = [];
  for (let i = 0; i < n; i++) {
    let k;
    [k, off] = take(m, off, 32);
    staticKeys.push(toB58(k));
  }
  const blockhashOffset = off;
  let bh;
  [bh, off] = take(m, off, 32);
  [n, off] = compactU16(m, off);
  const instructions = [];
  for (let i = 0; i < n; i++) {
    let p;
    [p, off] = take(m, off, 1);
    let na;
    [na, off] = compactU16(m, off);
    let accounts;
    [accounts, off] = take(m, off, na);
    let nd;
    [nd, off] = compactU16(m, off);
    let data;
    [data, off] = take(m, off, nd);
    instructions.push({ programIdIndex: p[0], accounts: Array.from(accounts), data: new Uint8Array(data) });
  }
  const lookups = [];
  if (version === 0) {
    [n, off] = compactU16(m, off);
    for (let i = 0; i < n; i++) {
      let k;
      [k, off] = take(m, off, 32);
      let nw;
      [nw, off] = compactU16(m, off);
      let w;
      [w, off] = take(m, off, nw);
      let nr;
      [nr, off] = compactU16(m, off);
      let r;
      [r, off] = take(m, off, nr);
      lookups.push({ accountKey: toB58(k), writableIndexes: Array.from(w), readonlyIndexes: Array.from(r) });
    }
  }
  return {
    version,
    header: { numRequiredSignatures: header[0], numReadonlySignedAccounts: header[1], numReadonlyUnsignedAccounts: header[2] },
    staticKeys,
    recentBlockhash: toB58(bh),
    blockhashOffset,
    instructions,
    lookups,
    length: off,
  };
}

function parseTransaction(bytes) {
  let [n, off] = compactU16(bytes, 0);
  const signatures = [];
  for (let i = 0; i < n; i++) {
    let s;
    [s, off] = take(bytes, off, 64);
    signatures.push(new Uint8Array(s));
  }
  const message = parseMessage(bytes.subarray(off));
  const messageBytes = bytes.subarray(off, off + message.length);
  return { signatures, messageBytes, message, wire: bytes.subarray(0, off + message.length), messageOffset: off };
}

// sanitizeError is what the runtime's sanitize step would say, found before the native binding
// sees the transaction.
function sanitizeError(tx) {
  const { message: m, signatures } = tx;
  const { numRequiredSignatures: req, numReadonlySignedAccounts: ros, numReadonlyUnsignedAccounts: rou } = m.header;
  const loaded = m.lookups.reduce((s, l) => s + l.writableIndexes.length + l.readonlyIndexes.length, 0);
  const total = m.staticKeys.length + loaded;
  if (signatures.length !== req || req > m.staticKeys.length || ros >= req || req + rou > m.staticKeys.length || req === 0) return "SanitizeFailure";
  if (total > 256) return "SanitizeFailure";
  for (const ix of m.instructions) {
    if (ix.programIdIndex === 0 || ix.programIdIndex >= m.staticKeys.length) return "SanitizeFailure";
    if (ix.accounts.some((a) => a >= total)) return "SanitizeFailure";
  }
  return null;
}

// The wire form an RPC parameter names, checked as the real RPC checks it (decode_and_deserialize).
function decodeWire(encoded, encoding) {
  if (typeof encoded !== "string") throw invalidParams("Invalid params: invalid type: expected a string.");
  let bytes;
  if (encoding === "base58") {
    if (encoded.length > MAX_BASE58_SIZE)
      throw invalidParams(`base58 encoded ${TX_TYPE_NAME} too large: ${encoded.length} bytes (max: encoded/raw ${MAX_BASE58_SIZE}/${PACKET_DATA_SIZE})`);
    try {
      bytes = fromB58(encoded);
    } catch (e) {
      throw invalidParams(`invalid base58 encoding: ${e.message}`);
    }
  } else if (encoding === "base64") {
    if (encoded.length > MAX_BASE64_SIZE)
      throw invalidParams(`base64 encoded ${TX_TYPE_NAME} too large: ${encoded.length} bytes (max: encoded/raw ${MAX_BASE64_SIZE}/${PACKET_DATA_SIZE})`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) throw invalidParams("invalid base64 encoding: InvalidPadding");
    bytes = new Uint8Array(Buffer.from(encoded, "base64"));
  } else {
    throw invalidParams(`unsupported encoding: ${encoding}. Supported encodings: base58, base64`);
  }
  if (bytes.length > PACKET_DATA_SIZE)
    throw invalidParams(`decoded ${TX_TYPE_NAME} too large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`);
  try {
    return parseTransaction(bytes);
  } catch (e) {
    if (e instanceof WireError) throw invalidParams(`failed to deserialize ${TX_TYPE_NAME}: ${e.message}`);
    throw e;
  }
}

// The accounts a transaction loads, in the order its metadata lists them: the static keys, then
// the writable and then the read-only addresses of its lookup tables. null when a table is
// missing or bad (the runtime then refuses the transaction).
function loadedAddresses(m) {
  const writable = [];
  const readonly = [];
  for (const l of m.lookups) {
    const t = account(l.accountKey);
    if (t === null || t.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM || t.data.length < 56) return null;
    const n = Math.floor((t.data.length - 56) / 32);
    const at = (i) => (i < n ? toB58(t.data.subarray(56 + 32 * i, 88 + 32 * i)) : null);
    for (const i of l.writableIndexes) writable.push(at(i));
    for (const i of l.readonlyIndexes) readonly.push(at(i));
  }
  if (writable.includes(null) || readonly.includes(null)) return null;
  return { writable, readonly };
}

// isDurableNonce: the first instruction advances a nonce account (system instruction 4).
function isDurableNonce(m) {
  const ix = m.instructions[0];
  return ix !== undefined && m.staticKeys[ix.programIdIndex] === SYSTEM_PROGRAM && ix.data.length >= 4 && Buffer.from(ix.data).readUInt32LE(0) === 4;
}

// The fee the runtime charged, from the metadata's text (the binding has no accessor for it).
function metaFee(meta) {
  const all = [...meta.toString().matchAll(/fee: (\d+) \}/g)];
  return all.length ? BigInt(all[all.length - 1][1]) : null;
}

// withRuntime runs f with LiteSVM's sigverify and blockhash checks set, then restores them.
function withRuntime({ sigverify = true, blockhashCheck = false }, f) {
  native.setSigverify(sigverify);
  native.setBlockhashCheck(blockhashCheck);
  try {
    return f();
  } finally {
    native.setSigverify(true);
    native.setBlockhashCheck(false);
  }
}

function tokenBalances(keys) {
  const out = [];
  const decimals = new Map();
  keys.forEach((k, accountIndex) => {
    const t = tokenAccountState(account(k));
    if (t === null) return;
    if (!decimals.has(t.mint)) decimals.set(t.mint, mintDecimals(t.mint));
    out.push({ accountIndex, mint: t.mint, owner: t.owner, programId: t.program, uiTokenAmount: uiTokenAmount(t.amount, decimals.get(t.mint)) });
  });
  return out;
}

function innerInstructionsOf(meta) {
  const out = [];
  meta.innerInstructions().forEach((list, index) => {
    if (list.length === 0) return;
    out.push({
      index,
      instructions: list.map((ii) => {
        const c = ii.instruction();
        return { programIdIndex: c.programIdIndex(), accounts: Array.from(c.accounts()), data: toB58(c.data()), stackHeight: ii.stackHeight() };
      }),
    });
  });
  return out;
}

function returnDataOf(meta) {
  const r = meta.returnData();
  const data = r.data();
  return data.length === 0 ? null : { programId: toB58(r.programId()), data: [toB64(data), "base64"] };
}

// memoOf is the RPC's memo field: each memo instruction's text as "[len] text", joined by "; ".
function memoOf(m) {
  const memos = m.instructions
    .filter((ix) => MEMO_PROGRAMS.has(m.staticKeys[ix.programIdIndex]))
    .map((ix) => `[${ix.data.length}] ${Buffer.from(ix.data).toString("utf8")}`);
  return memos.length ? memos.join("; ") : null;
}

// ---------------------------------------------------------------------------------------------
// The ledger: every transaction that landed, by signature and by address

const txs = new Map(); // base58 signature -> record
const byAddress = new Map(); // base58 address -> [signature...] oldest first

function record(tx, keys, loaded, result, pre) {
  const sig = toB58(tx.signatures[0]);
  const failed = result.constructor.name === "FailedTransactionMetadata";
  const meta = failed ? result.meta() : result;
  const err = failed ? txError(result.err()).json : null;
  const rec = {
    signature: sig,
    slot,
    blockTime: slotTimes[slot],
    wire: new Uint8Array(tx.wire),
    message: tx.message,
    keys,
    loaded,
    err,
    fee: metaFee(meta) ?? 5000n * BigInt(tx.signatures.length),
    preBalances: pre.balances,
    postBalances: keys.map((k) => native.getBalance(fromB58(k)) ?? 0n),
    preTokenBalances: pre.tokenBalances,
    postTokenBalances: tokenBalances(keys),
    logMessages: meta.logs(),
    innerInstructions: innerInstructionsOf(meta),
    computeUnitsConsumed: meta.computeUnitsConsumed(),
    returnData: returnDataOf(meta),
    memo: memoOf(tx.message),
  };
  txs.set(sig, rec);
  transactionCount++;
  for (const k of new Set(keys)) {
    let list = byAddress.get(k);
    if (list === undefined) byAddress.set(k, (list = []));
    list.push(sig);
  }
  return rec;
}

// simulate runs tx on the current state without committing it.
function simulate(tx, { sigverify, nonce }) {
  return withRuntime({ sigverify, blockhashCheck: nonce }, () => native.simulateVersionedTransaction(tx.wire));
}

function simulationValue(tx, result, { accounts, innerInstructions, replacementBlockhash } = {}) {
  const failed = result.constructor.name === "FailedTransactionMetadata";
  const meta = failed ? result.meta() : result.meta();
  let accountsOut = null;
  if (accounts) {
    const post = new Map();
    if (!failed) for (const a of result.postAccounts()) post.set(toB58(a.address), a.account());
    accountsOut = accounts.addresses.map((addr) => {
      const p = post.get(addr);
      const a = p ? { lamports: p.lamports(), owner: toB58(p.owner()), data: p.data(), executable: p.executable() } : account(addr);
      return a === null ? null : encodeAccount(addr, a, accounts.encoding ?? "base64");
    });
  }
  return {
    err: failed ? txError(result.err()).json : null,
    logs: meta.logs(),
    accounts: accountsOut,
    unitsConsumed: meta.computeUnitsConsumed(),
    returnData: returnDataOf(meta),
    innerInstructions: innerInstructions ? innerInstructionsOf(meta) : null,
    replacementBlockhash: replacementBlockhash ?? null,
    loadedAccountsDataSize: 0,
    fee: metaFee(meta),
  };
}

function preflightFailure(err, logs = [], unitsConsumed = 0n, returnData = null) {
  return new RpcError(-32002, `Transaction simulation failed: ${err.message}`, {
    accounts: null,
    err: err.json,
    innerInstructions: null,
    loadedAccountsDataSize: 0,
    logs,
    replacementBlockhash: null,
    returnData,
    unitsConsumed,
  });
}

// submit lands tx (already decoded) as sendTransaction does: with preflight, a transaction that
// would fail is refused with the simulation's error and logs; without it, one that fails in
// execution is recorded with its error (its fee charged) and one the runtime cannot even load (a
// dead blockhash, a duplicate, an unfunded fee payer, a bad signature) is dropped, as a leader
// drops it. Either way the signature comes back.
function submit(tx, { skipPreflight = false } = {}) {
  const sig = toB58(tx.signatures[0] ?? new Uint8Array(64));
  const sanitize = sanitizeError(tx);
  if (sanitize !== null) throw invalidParams(`invalid transaction: ${namedError(sanitize).message}`);
  const nonce = !isBlockhashValid(tx.message.recentBlockhash) && isDurableNonce(tx.message);
  let drop = null;
  if (txs.has(sig)) drop = namedError("AlreadyProcessed");
  else if (!nonce && !isBlockhashValid(tx.message.recentBlockhash)) drop = namedError("BlockhashNotFound");
  if (!skipPreflight) {
    if (drop !== null) throw preflightFailure(drop);
    const sim = simulate(tx, { sigverify: true, nonce });
    if (sim.constructor.name === "FailedTransactionMetadata") {
      const e = txError(sim.err());
      if (e.json === "SignatureFailure") throw new RpcError(-32003, "Transaction signature verification failure");
      throw preflightFailure(e, sim.meta().logs(), sim.meta().computeUnitsConsumed(), returnDataOf(sim.meta()));
    }
  }
  if (drop !== null) return sig;
  const loaded = loadedAddresses(tx.message) ?? { writable: [], readonly: [] };
  const keys = [...tx.message.staticKeys, ...loaded.writable, ...loaded.readonly];
  const pre = { balances: keys.map((k) => native.getBalance(fromB58(k)) ?? 0n), tokenBalances: tokenBalances(keys) };
  const result = withRuntime({ sigverify: true, blockhashCheck: nonce }, () => native.sendVersionedTransaction(tx.wire));
  // A transaction the runtime did not take (nothing charged) never reaches a block.
  if (native.getTransaction(tx.signatures[0]) === null) return sig;
  record(tx, keys, loaded, result, pre);
  return sig;
}

// airdrop sends lamports from the faucet in a transaction of its own, signed here, so that it
// has a signature, a status and a record like any other. Two airdrops of the same amount to the
// same account in one slot would be the same transaction, a duplicate: the second one asks for a
// compute unit limit of its own (variant), which makes it another.
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";

function airdrop(to, lamports, variant = 0) {
  const keys = [FAUCET.pubkey, fromB58(to), fromB58(SYSTEM_PROGRAM)];
  const ixs = [Buffer.concat([Buffer.from([2, 2, 0, 1, 12, 2, 0, 0, 0]), u64le(lamports)])];
  if (variant > 0) {
    keys.push(fromB58(COMPUTE_BUDGET_PROGRAM));
    const limit = Buffer.alloc(4);
    limit.writeUInt32LE(200_000 + variant);
    ixs.push(Buffer.concat([Buffer.from([3, 0, 5, 2]), limit])); // SetComputeUnitLimit
  }
  const msg = Buffer.concat([
    Buffer.from([1, 0, keys.length - 2, keys.length]),
    ...keys.map((k) => Buffer.from(k)),
    Buffer.from(fromB58(slotBlockhash[slot])),
    Buffer.from([ixs.length]),
    ...ixs,
  ]);
  const sig = crypto.sign(null, msg, FAUCET.privateKey);
  return parseTransaction(new Uint8Array(Buffer.concat([Buffer.from([1]), sig, msg])));
}

// ---------------------------------------------------------------------------------------------
// Account encodings

function encodeAccount(addr, a, encoding, dataSlice) {
  let data = a.data;
  if (dataSlice) data = data.subarray(dataSlice.offset ?? 0, (dataSlice.offset ?? 0) + (dataSlice.length ?? data.length));
  let out;
  switch (encoding) {
    case "binary":
    case "base58":
      if (data.length > MAX_BASE58_BYTES)
        throw invalidParams(`Encoded binary (base 58) data should be less than ${MAX_BASE58_BYTES} bytes, please use Base64 encoding.`);
      out = encoding === "binary" ? toB58(data) : [toB58(data), "base58"];
      break;
    case "base64":
      out = [toB64(data), "base64"];
      break;
    case "jsonParsed":
      out = (!dataSlice && parsedAccountData(a)) || [toB64(data), "base64"];
      break;
    case "base64+zstd":
      throw invalidParams("base64+zstd is not supported by this local runtime; use base64");
    default:
      throw invalidParams(`Invalid params: unknown variant \`${encoding}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\`.`);
  }
  return { data: out, executable: a.executable, lamports: a.lamports, owner: a.owner, rentEpoch: RENT_EPOCH_EXEMPT, space: a.data.length };
}

// parsedAccountData is jsonParsed for the accounts that have a parser here: SPL token accounts
// and mints (others fall back to base64, as the RPC's do without a parser).
function parsedAccountData(a) {
  const program = a.owner === TOKEN_2022_PROGRAM ? "spl-token-2022" : "spl-token";
  const t = tokenAccountState(a);
  if (t !== null) {
    const decimals = mintDecimals(t.mint);
    const info = { isNative: t.isNative !== null, mint: t.mint, owner: t.owner, state: t.state === 2 ? "frozen" : "initialized", tokenAmount: uiTokenAmount(t.amount, decimals) };
    if (t.delegate) {
      info.delegate = t.delegate;
      info.delegatedAmount = uiTokenAmount(t.delegatedAmount, decimals);
    }
    if (t.closeAuthority) info.closeAuthority = t.closeAuthority;
    if (t.isNative !== null) info.rentExemptReserve = uiTokenAmount(t.isNative, 9);
    return { program, parsed: { info, type: "account" }, space: a.data.length };
  }
  const m = mintState(a);
  if (m !== null) {
    return {
      program,
      parsed: { info: { decimals: m.decimals, freezeAuthority: m.freezeAuthority, isInitialized: true, mintAuthority: m.mintAuthority, supply: m.supply.toString() }, type: "mint" },
      space: a.data.length,
    };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Parameters

// base58Param reads a base58 parameter of size bytes, refused as the RPC does: "Invalid" for
// what does not decode, sizeError for another length.
function base58Param(v, size, sizeError) {
  if (typeof v !== "string") throw invalidParam("Invalid");
  let b;
  try {
    b = fromB58(v);
  } catch {
    throw invalidParam("Invalid");
  }
  if (b.length !== size) throw invalidParam(sizeError);
  return v;
}

const pubkeyParam = (v) => base58Param(v, 32, "WrongSize");
const signatureParam = (v) => base58Param(v, 64, "Invalid");

const config = (v) => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : {});

// context checks minContextSlot and gives the response's context for a commitment.
function context(cfg) {
  const s = commitmentSlot(cfg.commitment);
  if (cfg.minContextSlot !== undefined && cfg.minContextSlot > s)
    throw new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot: s });
  return { apiVersion: VERSION, slot: s };
}

function atLeastConfirmed(cfg) {
  const c = cfg.commitment ?? "finalized";
  if (c === "processed" || c === "recent" || c === "single") throw invalidParams("Method does not support commitment below `confirmed`");
  return c;
}

// The least age (in slots) at which a transaction has reached a commitment.
const ageFor = (commitment) => (commitment === "finalized" || commitment === "max" || commitment === "root" ? FINALIZED_DEPTH : commitment === "processed" ? 0 : 1);

function confirmationStatus(age) {
  return age >= FINALIZED_DEPTH ? "finalized" : age >= 1 ? "confirmed" : "processed";
}

// ---------------------------------------------------------------------------------------------
// Methods

// The Agave runtime crates litesvm 1.5.0 is built on (4.3); "litesvm" names the library itself.
const VERSION = "4.3.0";
const LITESVM_VERSION = JSON.parse(readFileSync(new URL("./node_modules/litesvm/package.json", import.meta.url))).version;

function encodeTransaction(rec, encoding) {
  switch (encoding) {
    case "base64":
      return [toB64(rec.wire), "base64"];
    case "base58":
      return [toB58(rec.wire), "base58"];
    case "json": {
      const m = rec.message;
      const message = {
        accountKeys: m.staticKeys,
        header: m.header,
        instructions: m.instructions.map((ix) => ({ accounts: ix.accounts, data: toB58(ix.data), programIdIndex: ix.programIdIndex, stackHeight: null })),
        recentBlockhash: m.recentBlockhash,
      };
      if (m.version === 0) message.addressTableLookups = m.lookups;
      const tx = parseTransaction(rec.wire);
      return { message, signatures: tx.signatures.map(toB58) };
    }
    case "jsonParsed":
      throw invalidParams("jsonParsed is not supported by this local runtime; use json, base64 or base58");
    default:
      throw invalidParams(`Invalid params: unknown variant \`${encoding}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\`.`);
  }
}

function tokenAccountsBy(field, params) {
  const who = pubkeyParam(params[0]);
  const filter = config(params[1]);
  const cfg = config(params[2]);
  let programs;
  let mint = null;
  if (filter.mint !== undefined) {
    mint = pubkeyParam(filter.mint);
    const m = account(mint);
    if (m === null || mintState(m) === null) throw invalidParam("could not find mint");
    programs = [m.owner];
  } else if (filter.programId !== undefined) {
    if (!isTokenProgram(filter.programId)) throw invalidParam("unrecognized Token program id");
    programs = [filter.programId];
  } else {
    throw invalidParams("Invalid params: expected a filter: {\"mint\": ...} or {\"programId\": ...}");
  }
  const value = [];
  for (const p of programs) {
    for (const e of native.getProgramAccounts(fromB58(p))) {
      const addr = toB58(e.address);
      const acct = e.account();
      const a = { lamports: acct.lamports(), owner: p, data: acct.data(), executable: acct.executable() };
      const t = tokenAccountState(a);
      if (t === null || t[field] !== who || (mint !== null && t.mint !== mint)) continue;
      value.push({ account: encodeAccount(addr, a, cfg.encoding ?? "binary", cfg.dataSlice), pubkey: addr });
    }
  }
  return { context: context(cfg), value };
}

function programAccountMatches(a, filters) {
  for (const f of filters) {
    if (f.dataSize !== undefined) {
      if (a.data.length !== f.dataSize) return false;
    } else if (f.memcmp !== undefined) {
      const want = f.memcmp.encoding === "base64" ? new Uint8Array(Buffer.from(f.memcmp.bytes, "base64")) : fromB58(f.memcmp.bytes);
      const off = f.memcmp.offset ?? 0;
      if (off + want.length > a.data.length) return false;
      for (let i = 0; i < want.length; i++) if (a.data[off + i] !== want[i]) return false;
    } else if (f.tokenAccountState === undefined) {
      throw invalidParams("Invalid params: unknown filter");
    } else if (tokenAccountState(a) === null) {
      return false;
    }
  }
  return true;
}

const methods = {
  getHealth: () => "ok",
  getVersion: () => ({ "feature-set": 0, "solana-core": VERSION, litesvm: LITESVM_VERSION }),
  getGenesisHash: () => toB58(genesisHash),
  getIdentity: () => ({ identity: FAUCET.address }),
  getFirstAvailableBlock: () => 0,
  minimumLedgerSlot: () => 0,
  getSlot: (p) => context(config(p[0])).slot,
  getBlockHeight: (p) => blockHeight(context(config(p[0])).slot),
  getTransactionCount: (p) => (context(config(p[0])), transactionCount),
  getEpochInfo: (p) => {
    const s = context(config(p[0])).slot;
    return { absoluteSlot: s, blockHeight: blockHeight(s), epoch: Math.floor(s / SLOTS_PER_EPOCH), slotIndex: s % SLOTS_PER_EPOCH, slotsInEpoch: SLOTS_PER_EPOCH, transactionCount };
  },
  getEpochSchedule: () => ({ firstNormalEpoch: 0, firstNormalSlot: 0, leaderScheduleSlotOffset: SLOTS_PER_EPOCH, slotsPerEpoch: SLOTS_PER_EPOCH, warmup: false }),
  getBlockTime: (p) => {
    const s = p[0];
    if (!Number.isInteger(s) || s < 0 || s > slot || slotTimes[s] === undefined) throw new RpcError(-32004, `Block not available for slot ${s}`);
    return slotTimes[s];
  },
  // getBlock answers a block's header (transactionDetails "none", rewards off: what a client
  // reading block hashes asks, the engine's scanner to tell a reorg); a slot's blockhash is a
  // function of the genesis hash and the slot, so every slot since the start has one.
  getBlock: (p) => {
    const s = p[0];
    const cfg = config(p[1]);
    const top = context(cfg).slot;
    if (!Number.isInteger(s) || s < 0 || s > top || slotTimes[s] === undefined) throw new RpcError(-32004, `Block not available for slot ${s}`);
    if ((cfg.transactionDetails ?? "full") !== "none") throw invalidParam("this local chain serves getBlock with transactionDetails \"none\" only");
    const block = { blockhash: blockhashOf(s), previousBlockhash: s > 0 ? blockhashOf(s - 1) : toB58(genesisHash), parentSlot: Math.max(s - 1, 0),
      blockHeight: blockHeight(s), blockTime: slotTimes[s] };
    if (cfg.rewards !== false) block.rewards = [];
    return block;
  },
  getLatestBlockhash: (p) => {
    const ctx = context(config(p[0]));
    return { context: ctx, value: { blockhash: slotBlockhash[ctx.slot], lastValidBlockHeight: blockHeight(ctx.slot) + MAX_PROCESSING_AGE } };
  },
  isBlockhashValid: (p) => {
    if (typeof p[0] !== "string") throw invalidParam("Invalid");
    return { context: context(config(p[1])), value: isBlockhashValid(p[0]) };
  },
  getRecentPrioritizationFees: () => {
    const out = [];
    for (let s = Math.max(0, slot - MAX_PROCESSING_AGE + 1); s <= slot; s++) out.push({ prioritizationFee: 0, slot: s });
    return out;
  },
  getMinimumBalanceForRentExemption: (p) => {
    const n = p[0] ?? 0;
    if (!Number.isInteger(n) || n < 0) throw invalidParams("Invalid params: invalid type: expected usize.");
    return svm.minimumBalanceForRentExemption(BigInt(n));
  },
  getFeeForMessage: (p) => {
    const cfg = config(p[1]);
    const ctx = context(cfg);
    if (typeof p[0] !== "string") throw invalidParam("Invalid");
    let m;
    let bytes;
    try {
      bytes = new Uint8Array(Buffer.from(p[0], "base64"));
      m = parseMessage(bytes);
    } catch (e) {
      if (e instanceof WireError) throw invalidParams(`failed to deserialize solana_message::versioned::VersionedMessage: ${e.message}`);
      throw e;
    }
    if (!isBlockhashValid(m.recentBlockhash)) return { context: ctx, value: null };
    // The runtime's own fee, from a simulation with blank signatures.
    const n = m.header.numRequiredSignatures;
    const wire = new Uint8Array(Buffer.concat([Buffer.from([n]), Buffer.alloc(64 * n), Buffer.from(bytes.subarray(0, m.length))]));
    const tx = parseTransaction(wire);
    if (sanitizeError(tx) !== null) throw invalidParams("invalid transaction: Transaction failed to sanitize accounts offsets correctly");
    const sim = simulate(tx, { sigverify: false, nonce: false });
    return { context: ctx, value: metaFee(sim.constructor.name === "FailedTransactionMetadata" ? sim.meta() : sim.meta()) ?? 5000n * BigInt(n) };
  },
  getBalance: (p) => {
    const addr = pubkeyParam(p[0]);
    return { context: context(config(p[1])), value: native.getBalance(fromB58(addr)) ?? 0n };
  },
  getAccountInfo: (p) => {
    const addr = pubkeyParam(p[0]);
    const cfg = config(p[1]);
    const a = account(addr);
    return { context: context(cfg), value: a === null ? null : encodeAccount(addr, a, cfg.encoding ?? "binary", cfg.dataSlice) };
  },
  getMultipleAccounts: (p) => {
    if (!Array.isArray(p[0])) throw invalidParams("Invalid params: invalid type: expected a sequence.");
    if (p[0].length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
    const addrs = p[0].map(pubkeyParam);
    const cfg = config(p[1]);
    return {
      context: context(cfg),
      value: addrs.map((addr) => {
        const a = account(addr);
        return a === null ? null : encodeAccount(addr, a, cfg.encoding ?? "base64", cfg.dataSlice);
      }),
    };
  },
  getProgramAccounts: (p) => {
    const program = pubkeyParam(p[0]);
    const cfg = config(p[1]);
    const filters = Array.isArray(cfg.filters) ? cfg.filters : [];
    const value = [];
    for (const e of native.getProgramAccounts(fromB58(program))) {
      const acct = e.account();
      const a = { lamports: acct.lamports(), owner: program, data: acct.data(), executable: acct.executable() };
      if (!programAccountMatches(a, filters)) continue;
      const addr = toB58(e.address);
      value.push({ account: encodeAccount(addr, a, cfg.encoding ?? "binary", cfg.dataSlice), pubkey: addr });
    }
    return cfg.withContext ? { context: context(cfg), value } : (context(cfg), value);
  },
  getTokenAccountBalance: (p) => {
    const addr = pubkeyParam(p[0]);
    const cfg = config(p[1]);
    const a = account(addr);
    if (a === null) throw invalidParam("could not find account");
    const t = tokenAccountState(a);
    if (t === null) throw invalidParam("not a Token account");
    return { context: context(cfg), value: uiTokenAmount(t.amount, mintDecimals(t.mint)) };
  },
  getTokenSupply: (p) => {
    const addr = pubkeyParam(p[0]);
    const cfg = config(p[1]);
    const m = mintState(account(addr));
    if (m === null) throw invalidParam("not a Token mint");
    return { context: context(cfg), value: uiTokenAmount(m.supply, m.decimals) };
  },
  getTokenAccountsByOwner: (p) => tokenAccountsBy("owner", p),
  getTokenAccountsByDelegate: (p) => tokenAccountsBy("delegate", p),
  sendTransaction: (p) => {
    const cfg = config(p[1]);
    const tx = decodeWire(p[0], cfg.encoding ?? "base58");
    if (cfg.minContextSlot !== undefined) context({ commitment: cfg.preflightCommitment ?? "processed", minContextSlot: cfg.minContextSlot });
    return submit(tx, { skipPreflight: cfg.skipPreflight === true });
  },
  simulateTransaction: (p) => {
    const cfg = config(p[1]);
    const ctx = context(cfg);
    let tx = decodeWire(p[0], cfg.encoding ?? "base58");
    const sigverify = cfg.sigVerify === true;
    let replacement = null;
    if (cfg.replaceRecentBlockhash === true) {
      if (sigverify) throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
      const wire = new Uint8Array(tx.wire);
      wire.set(fromB58(slotBlockhash[slot]), tx.messageOffset + tx.message.blockhashOffset);
      tx = parseTransaction(wire);
      replacement = { blockhash: slotBlockhash[slot], lastValidBlockHeight: blockHeight(slot) + MAX_PROCESSING_AGE };
    }
    if (sanitizeError(tx) !== null) throw invalidParams(`invalid transaction: ${namedError("SanitizeFailure").message}`);
    const nonce = !isBlockhashValid(tx.message.recentBlockhash) && isDurableNonce(tx.message);
    if (sigverify && tx.signatures.some((s) => s.every((b) => b === 0)))
      throw new RpcError(-32003, "Transaction signature verification failure");
    if (!nonce && !isBlockhashValid(tx.message.recentBlockhash)) {
      return {
        context: ctx,
        value: { err: "BlockhashNotFound", logs: [], accounts: null, unitsConsumed: 0, returnData: null, innerInstructions: null, replacementBlockhash: null, loadedAccountsDataSize: 0, fee: null },
      };
    }
    const accounts = cfg.accounts ? { addresses: (cfg.accounts.addresses ?? []).map(pubkeyParam), encoding: cfg.accounts.encoding } : null;
    const sim = simulate(tx, { sigverify, nonce });
    if (sigverify && sim.constructor.name === "FailedTransactionMetadata" && txError(sim.err()).json === "SignatureFailure")
      throw new RpcError(-32003, "Transaction signature verification failure");
    return { context: ctx, value: simulationValue(tx, sim, { accounts, innerInstructions: cfg.innerInstructions === true, replacementBlockhash: replacement }) };
  },
  requestAirdrop: (p) => {
    const to = pubkeyParam(p[0]);
    const lamports = p[1];
    if (!Number.isSafeInteger(lamports) || lamports <= 0) throw invalidParams("Invalid params: invalid type: expected u64.");
    let tx = airdrop(to, BigInt(lamports));
    for (let v = 1; txs.has(toB58(tx.signatures[0])); v++) tx = airdrop(to, BigInt(lamports), v);
    try {
      return submit(tx);
    } catch (e) {
      throw new RpcError(-32603, `Internal error: airdrop failed: ${e.message}`);
    }
  },
  getSignatureStatuses: (p) => {
    if (!Array.isArray(p[0])) throw invalidParams("Invalid params: invalid type: expected a sequence.");
    if (p[0].length > MAX_SIGNATURE_STATUSES) throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
    const sigs = p[0].map(signatureParam);
    const cfg = config(p[1]);
    return {
      context: { apiVersion: VERSION, slot },
      value: sigs.map((s) => {
        const rec = txs.get(s);
        if (rec === undefined) return null;
        const age = slot - rec.slot;
        // The status cache reaches back MAX_RECENT_BLOCKHASHES slots; older ones only with
        // searchTransactionHistory, and then only once finalized (from the ledger).
        if (age > MAX_RECENT_BLOCKHASHES && cfg.searchTransactionHistory !== true) return null;
        const status = confirmationStatus(age);
        return {
          confirmationStatus: status,
          confirmations: status === "finalized" ? null : age,
          err: rec.err,
          slot: rec.slot,
          status: rec.err === null ? { Ok: null } : { Err: rec.err },
        };
      }),
    };
  },
  getTransaction: (p) => {
    const sig = signatureParam(p[0]);
    const cfg = typeof p[1] === "string" ? { encoding: p[1] } : config(p[1]);
    const commitment = atLeastConfirmed(cfg);
    const rec = txs.get(sig);
    if (rec === undefined || slot - rec.slot < ageFor(commitment)) return null;
    const maxVersion = cfg.maxSupportedTransactionVersion;
    if (rec.message.version === 0 && maxVersion === undefined)
      throw new RpcError(
        -32015,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    const meta = {
      computeUnitsConsumed: rec.computeUnitsConsumed,
      err: rec.err,
      fee: rec.fee,
      innerInstructions: rec.innerInstructions,
      loadedAddresses: rec.loaded,
      logMessages: rec.logMessages,
      postBalances: rec.postBalances,
      postTokenBalances: rec.postTokenBalances,
      preBalances: rec.preBalances,
      preTokenBalances: rec.preTokenBalances,
      rewards: [],
      status: rec.err === null ? { Ok: null } : { Err: rec.err },
    };
    if (rec.returnData !== null) meta.returnData = rec.returnData;
    const out = { blockTime: rec.blockTime, meta, slot: rec.slot, transaction: encodeTransaction(rec, cfg.encoding ?? "json") };
    if (maxVersion !== undefined) out.version = rec.message.version;
    return out;
  },
  getSignaturesForAddress: (p) => {
    const addr = pubkeyParam(p[0]);
    const cfg = config(p[1]);
    const commitment = atLeastConfirmed(cfg);
    const limit = cfg.limit ?? MAX_SIGNATURES_FOR_ADDRESS;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_FOR_ADDRESS) throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_FOR_ADDRESS}`);
    const before = cfg.before === undefined || cfg.before === null ? null : signatureParam(cfg.before);
    const until = cfg.until === undefined || cfg.until === null ? null : signatureParam(cfg.until);
    const list = byAddress.get(addr) ?? [];
    const out = [];
    let started = before === null;
    for (let i = list.length - 1; i >= 0 && out.length < limit; i--) {
      const rec = txs.get(list[i]);
      if (!started) {
        if (rec.signature === before) started = true;
        continue;
      }
      if (rec.signature === until) break;
      const age = slot - rec.slot;
      if (age < ageFor(commitment)) continue;
      out.push({ blockTime: rec.blockTime, confirmationStatus: confirmationStatus(age), err: rec.err, memo: rec.memo, signature: rec.signature, slot: rec.slot });
    }
    return out;
  },
};

// ---------------------------------------------------------------------------------------------
// JSON-RPC over HTTP

function call(req) {
  const id = req !== null && typeof req === "object" && "id" in req ? req.id : null;
  if (req === null || typeof req !== "object" || Array.isArray(req) || req.jsonrpc !== "2.0" || typeof req.method !== "string")
    return { jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" }, id };
  const m = Object.hasOwn(methods, req.method) ? methods[req.method] : undefined;
  if (m === undefined) return { jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id };
  const params = req.params === undefined || req.params === null ? [] : req.params;
  if (!Array.isArray(params)) return { jsonrpc: "2.0", error: { code: -32602, message: "Invalid params: expected an array" }, id };
  try {
    return { jsonrpc: "2.0", result: m(params), id };
  } catch (e) {
    if (e instanceof RpcError) {
      const error = { code: e.code, message: e.message };
      if (e.data !== undefined) error.data = e.data;
      return { jsonrpc: "2.0", error, id };
    }
    process.stderr.write(`solana localnet: ${req.method}: ${e.stack ?? e}\n`);
    return { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id };
  }
}

function handle(body) {
  let req;
  try {
    req = JSON.parse(body);
  } catch {
    return { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null };
  }
  if (Array.isArray(req)) {
    if (req.length === 0) return { jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" }, id: null };
    return req.map(call);
  }
  return call(req);
}

const MAX_BODY = 50 * 1024 * 1024;

const server = http.createServer((req, res) => {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Allow-Headers", "Content-Type, solana-client");
  res.setHeader("Access-Control-Allow-Methods", "POST, GET, OPTIONS");
  if (req.method === "OPTIONS") {
    res.writeHead(204).end();
    return;
  }
  if (req.method === "GET" && req.url === "/health") {
    res.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(405, { "Content-Type": "text/plain" }).end("Used HTTP Method is not allowed. POST or OPTIONS is required");
    return;
  }
  const chunks = [];
  let size = 0;
  req.on("data", (c) => {
    size += c.length;
    if (size > MAX_BODY) {
      res.writeHead(413).end();
      req.destroy();
      return;
    }
    chunks.push(c);
  });
  req.on("end", () => {
    if (res.writableEnded) return;
    const out = stringify(handle(Buffer.concat(chunks).toString("utf8")));
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" }).end(out);
  });
});

// Idle connections outlive the clients' own idle timeouts (Go's transport: 90 s), so a client never
// sends on a connection the server is closing: a POST is not retried.
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;

// ---------------------------------------------------------------------------------------------
// Genesis: the mint, the funded accounts, slot 0

async function genesis() {
  const sol = (n) => n * LAMPORTS_PER_SOL;
  setAccount(FAUCET.address, sol(FAUCET_SOL), SYSTEM_PROGRAM, new Uint8Array(0));
  setAccount(DEPLOYER.address, sol(DEPLOYER_SOL), SYSTEM_PROGRAM, new Uint8Array(0));
  setAccount(SOLVER.address, sol(SOLVER_SOL), SYSTEM_PROGRAM, new Uint8Array(0));
  for (const t of TESTS) setAccount(t.address, sol(TEST_ACCOUNT_SOL), SYSTEM_PROGRAM, new Uint8Array(0));

  const holders = [
    [SOLVER.address, SOLVER_USDC],
    ...TESTS.map((t) => [t.address, TEST_ACCOUNT_USDC]),
  ];
  const supply = holders.reduce((s, [, a]) => s + a, 0n);
  const mintData = mintAccountData({ mintAuthority: DEPLOYER.address, supply, decimals: USDC_DECIMALS, freezeAuthority: DEPLOYER.address });
  setAccount(USDC_MINT.address, svm.minimumBalanceForRentExemption(BigInt(mintData.length)), TOKEN_PROGRAM, mintData);
  const ataRent = svm.minimumBalanceForRentExemption(165n);
  const atas = {};
  for (const [owner, amount] of holders) {
    const ata = await associatedTokenAddress(owner, USDC_MINT.address);
    atas[owner] = ata;
    setAccount(ata, ataRent, TOKEN_PROGRAM, tokenAccountData(USDC_MINT.address, owner, amount));
  }
  // wSOL: the native mint (as on every cluster: no authority, 9 decimals; created when the
  // runtime does not have it) and each holder's associated token account of it, a native
  // account holding its rent plus its wSOL, as syncNative would leave it.
  if (account(NATIVE_MINT) === null) {
    const nativeMint = mintAccountData({ mintAuthority: null, supply: 0n, decimals: WSOL_DECIMALS, freezeAuthority: null });
    setAccount(NATIVE_MINT, svm.minimumBalanceForRentExemption(BigInt(nativeMint.length)), TOKEN_PROGRAM, nativeMint);
  }
  for (const [owner, amount] of [[SOLVER.address, SOLVER_WSOL], ...TESTS.map((t) => [t.address, TEST_ACCOUNT_WSOL])]) {
    const ata = await associatedTokenAddress(owner, NATIVE_MINT);
    setAccount(ata, ataRent + amount, TOKEN_PROGRAM, tokenAccountData(NATIVE_MINT, owner, amount, ataRent));
  }
  // Slot 0 is the genesis block and nothing lands in it: the chain serves from slot 1, whose
  // confirmed slot (0) holds no transaction. Serving from slot 0, a transaction sent in the
  // first 400 ms landed in slot 0, which the confirmed head (never below 0) already named,
  // while the transaction was not confirmed yet: a scanner that read slot 0 then moved past it
  // and never saw the deposit.
  enterSlot(0);
  enterSlot(++slot);
  return atas;
}

// The ready line and the summary name the keys by address only, as the EVM devnet does: the
// test keypairs come from the mnemonic and path, the others from keys.go's seeds.
const keyJSON = (k, atas) => ({ address: k.address, usdcAccount: atas[k.address] ?? null });

function summary(url) {
  const lines = [
    `solana localnet: a local Solana runtime (litesvm ${LITESVM_VERSION}), not a validator: one process, in memory, a slot every ${SLOT_MS} ms`,
    `  RPC       ${url}`,
    `  genesis   ${toB58(genesisHash)}`,
    `  USDC      ${USDC_MINT.address}  (SPL Token mint, ${USDC_DECIMALS} decimals; mint and freeze authority: deployer)`,
    `  wSOL      ${NATIVE_MINT}  (the native mint, ${WSOL_DECIMALS} decimals)`,
    `  deployer  ${DEPLOYER.address}`,
    `  solver    ${SOLVER.address}  (${SOLVER_SOL} SOL, ${SOLVER_USDC / 1_000_000n} USDC, ${SOLVER_WSOL / LAMPORTS_PER_SOL} wSOL)`,
    `  faucet    ${FAUCET.address}  (requestAirdrop)`,
    `Test keypairs, ${TEST_ACCOUNT_SOL} SOL, ${TEST_ACCOUNT_USDC / 1_000_000n} USDC and ${TEST_ACCOUNT_WSOL / LAMPORTS_PER_SOL} wSOL each; their keys are the test mnemonic's`,
    `("test test ... junk", m/44'/501'/i'/0', the path of Phantom and Solflare):`,
    ...TESTS.map((t, i) => `  (${i}) ${t.address}`),
  ];
  return `${lines.join("\n")}\n`;
}

const atas = await genesis();

let ticker;
server.listen(PORT, HOST, () => {
  const { port } = server.address();
  const host = HOST === "0.0.0.0" ? "127.0.0.1" : HOST === "::" ? "[::1]" : HOST.includes(":") ? `[${HOST}]` : HOST;
  const url = `http://${host}:${port}`;
  ticker = setInterval(() => enterSlot(++slot), SLOT_MS);
  const ready = {
    url,
    genesisHash: toB58(genesisHash),
    slotMs: SLOT_MS,
    litesvm: LITESVM_VERSION,
    usdcMint: USDC_MINT.address,
    usdcDecimals: USDC_DECIMALS,
    deployer: keyJSON(DEPLOYER, atas),
    solver: keyJSON(SOLVER, atas),
    faucet: keyJSON(FAUCET, atas),
    testAccounts: TESTS.map((t) => keyJSON(t, atas)),
  };
  process.stdout.write(`ready ${JSON.stringify(ready)}\n`);
  if (!has("quiet")) process.stderr.write(summary(url));
});
server.on("error", (e) => fail(`cannot serve on ${HOST}:${PORT}: ${e.message}`));

function stop() {
  clearInterval(ticker);
  server.close();
  server.closeAllConnections();
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
if (has("watch-stdin")) {
  process.stdin.on("end", stop);
  process.stdin.on("close", stop);
  process.stdin.resume();
}
