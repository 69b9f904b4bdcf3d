// Package client provides the worker-controller client the Temporal server's worker-deployment
// code depends on. Auto-scaling is not available in the development server: describing a
// controller finds none (the server treats NotFound as "no compute configured"), and
// configuring one is refused with Unimplemented.
package client

import (
	"context"

	deploymentpb "go.temporal.io/api/deployment/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/server/common/namespace"
	"go.uber.org/fx"

	"go.temporal.io/auto-scaled-workers/wci/workflow/iface"
)

// Client manages the worker controllers of worker deployment versions.
type Client interface {
	UpdateTaskQueueName(ctx context.Context, newTaskQueueName string) error
	WorkerControllerInstanceExists(ctx context.Context, ns *namespace.Namespace, version *deploymentpb.WorkerDeploymentVersion) (bool, error)
	DescribeWorkerControllerInstance(ctx context.Context, ns *namespace.Namespace, version *deploymentpb.WorkerDeploymentVersion) (*iface.QueryDescribeWorkerControllerInstanceResponse, []byte, error)
	ListWorkerControllerInstances(ctx context.Context, ns *namespace.Namespace, pageSize int, nextPageToken []byte) ([]*WorkerControllerInstanceSummary, []byte, error)
	UpdateWorkerControllerInstance(ctx context.Context, ns *namespace.Namespace, version *deploymentpb.WorkerDeploymentVersion,
		conflictToken []byte, identity string, upsertScalingGroups map[string]iface.ScalingGroupSpecUpdate, removeScalingGroups []string) (*iface.UpdateWorkerControllerInstanceResponse, error)
	ValidateWorkerControllerInstanceSpec(ctx context.Context, ns *namespace.Namespace, version *deploymentpb.WorkerDeploymentVersion,
		identity string, upsertScalingGroups map[string]iface.ScalingGroupSpecUpdate, removeScalingGroups []string) error
	DeleteWorkerControllerInstance(ctx context.Context, ns *namespace.Namespace, version *deploymentpb.WorkerDeploymentVersion, identity string) error
	SignalTaskAddEvent(ctx context.Context, ns *namespace.Namespace, version *deploymentpb.WorkerDeploymentVersion, request *iface.SignalTaskAddRequest) error
}

// WorkerControllerInstanceSummary is one controller of a listing.
type WorkerControllerInstanceSummary struct {
	DeploymentName string
	BuildId        string
}

// Module provides the Client.
var Module = fx.Options(fx.Provide(func() Client { return disabled{} }))

const why = "worker auto-scaling is not available in the development server"

type disabled struct{}

func (disabled) UpdateTaskQueueName(context.Context, string) error { return nil }

func (disabled) WorkerControllerInstanceExists(context.Context, *namespace.Namespace, *deploymentpb.WorkerDeploymentVersion) (bool, error) {
	return false, nil
}

func (disabled) DescribeWorkerControllerInstance(context.Context, *namespace.Namespace, *deploymentpb.WorkerDeploymentVersion) (*iface.QueryDescribeWorkerControllerInstanceResponse, []byte, error) {
	return nil, nil, serviceerror.NewNotFound(why)
}

func (disabled) ListWorkerControllerInstances(context.Context, *namespace.Namespace, int, []byte) ([]*WorkerControllerInstanceSummary, []byte, error) {
	return nil, nil, nil
}

func (disabled) UpdateWorkerControllerInstance(context.Context, *namespace.Namespace, *deploymentpb.WorkerDeploymentVersion, []byte, string,
	map[string]iface.ScalingGroupSpecUpdate, []string) (*iface.UpdateWorkerControllerInstanceResponse, error) {
	return nil, serviceerror.NewUnimplemented(why)
}

func (disabled) ValidateWorkerControllerInstanceSpec(context.Context, *namespace.Namespace, *deploymentpb.WorkerDeploymentVersion, string,
	map[string]iface.ScalingGroupSpecUpdate, []string) error {
	return serviceerror.NewUnimplemented(why)
}

func (disabled) DeleteWorkerControllerInstance(context.Context, *namespace.Namespace, *deploymentpb.WorkerDeploymentVersion, string) error {
	return nil
}

func (disabled) SignalTaskAddEvent(context.Context, *namespace.Namespace, *deploymentpb.WorkerDeploymentVersion, *iface.SignalTaskAddRequest) error {
	return nil
}
