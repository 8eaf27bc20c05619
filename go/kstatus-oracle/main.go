// kstatus-oracle computes sigs.k8s.io/cli-utils kstatus (status.Compute, what Flux's health
// checks and kstatus-based waits use) for Kubernetes objects: one JSON object per input line on
// stdin, one JSON verdict {"status","message"} per line on stdout. A measuring instrument for the
// GitOps-health tests (test/integration/controller-kstatus.test.ts), never part of kro-ts itself.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type verdict struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	Error   string `json:"error,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		// Unstructured's own decoder turns JSON integers into int64, as a client's objects hold them.
		object := &unstructured.Unstructured{}
		if err := object.UnmarshalJSON(in.Bytes()); err != nil {
			fmt.Fprintln(os.Stderr, "kstatus-oracle:", err)
			os.Exit(2)
		}
		result, err := status.Compute(object)
		v := verdict{}
		if err != nil {
			v.Error = err.Error()
		} else {
			v.Status = result.Status.String()
			v.Message = result.Message
		}
		if err := out.Encode(v); err != nil {
			fmt.Fprintln(os.Stderr, "kstatus-oracle:", err)
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "kstatus-oracle:", err)
		os.Exit(2)
	}
}
