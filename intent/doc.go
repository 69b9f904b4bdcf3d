// Package intent is the domain at the centre of the engine: request statuses, the failReason
// and refundFailReason vocabularies of the spec, amounts in the smallest unit, currencies and
// the order a quote commits to. It does no I/O, so every other package can depend on it.
package intent
