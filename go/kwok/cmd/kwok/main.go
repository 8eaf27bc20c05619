// Command kwok simulates a node and its pods (no kubelet, no containers) so that Deployments in
// the local cluster roll out and report Available.
package main

import (
	"os"

	"github.com/spf13/pflag"

	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/cmd"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"
)

func main() {
	flags := pflag.NewFlagSet("global", pflag.ContinueOnError)
	flags.ParseErrorsWhitelist.UnknownFlags = true
	ctx, logger := log.InitFlags(signals.SetupSignalContext(), flags)
	ctx, err := config.InitFlags(ctx, flags)
	if err != nil {
		logger.Error("init config flags", err)
		os.Exit(1)
	}
	command := cmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(flags)
	if err := command.ExecuteContext(ctx); err != nil {
		logger.Error("kwok exited", err)
		os.Exit(1)
	}
}
