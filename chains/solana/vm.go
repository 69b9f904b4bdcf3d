package solana

import "github.com/intentd/intentd/chains"

// VM is the Solana family for chains.NewClients: it opens a *Client for each chain of type svm.
// Nothing links it into the engine's binaries yet; the lead wires it (issue 36).
func VM() chains.VM {
	return chains.VM{Type: chains.VMTypeSVM, Open: func(ch *chains.Chain) (chains.Client, error) {
		c, err := Dial(ch)
		if err != nil {
			return nil, err
		}
		return c, nil
	}}
}
