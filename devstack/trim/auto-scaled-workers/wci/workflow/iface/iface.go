// Package iface holds the worker-controller types the Temporal server's worker-deployment code
// converts to and from. Without auto-scaling no value of them is ever made by a controller; they
// exist so that code compiles unchanged.
package iface

import (
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
)

type (
	// ComputeProviderType names a compute provider.
	ComputeProviderType string
	// ScalingAlgorithmType names a scaling algorithm.
	ScalingAlgorithmType string
	// ValidationResult is the outcome of a compute configuration check.
	ValidationResult string

	// ComputeProviderSpec is one provider and its settings.
	ComputeProviderSpec struct {
		ProviderType  ComputeProviderType `json:"provider_type,omitempty"`
		Config        *commonpb.Payload   `json:"config,omitempty"`
		NexusEndpoint string              `json:"nexus_endpoint,omitempty"`
	}

	// ScalingAlgorithmSpec is one scaling algorithm and its settings.
	ScalingAlgorithmSpec struct {
		ScalingAlgorithm ScalingAlgorithmType `json:"scaling_algorithm,omitempty"`
		Config           *commonpb.Payload    `json:"config,omitempty"`
	}

	// ScalingGroupSpec is the compute of a set of task queue types.
	ScalingGroupSpec struct {
		TaskTypes []enumspb.TaskQueueType `json:"task_types"`
		Compute   ComputeProviderSpec     `json:"compute"`
		Scaling   *ScalingAlgorithmSpec   `json:"scaling,omitempty"`
	}

	// ScalingGroupSpecUpdate changes one scaling group, limited to the mask's paths.
	ScalingGroupSpecUpdate struct {
		Spec       ScalingGroupSpec `json:"spec"`
		UpdateMask []string         `json:"update_mask,omitempty"`
	}

	// WorkerControllerInstanceSpec is a worker deployment version's compute configuration.
	WorkerControllerInstanceSpec struct {
		ScalingGroupSpecs map[string]ScalingGroupSpec `json:"scaling_group_specs"`
	}

	// ValidationStatus is the result of the last compute configuration check.
	ValidationStatus struct {
		LastValidationTime time.Time        `json:"last_validation_time"`
		Status             ValidationResult `json:"status"`
		ErrMessage         string           `json:"err_message,omitempty"`
	}

	// QueryDescribeWorkerControllerInstanceResponse describes a controller.
	QueryDescribeWorkerControllerInstanceResponse struct {
		Spec             *WorkerControllerInstanceSpec `json:"spec,omitempty"`
		ValidationStatus *ValidationStatus             `json:"validation_state,omitempty"`
	}

	// UpdateWorkerControllerInstanceResponse is a controller's configuration after an update.
	UpdateWorkerControllerInstanceResponse struct {
		Spec *WorkerControllerInstanceSpec `json:"spec,omitempty"`
	}

	// SignalTaskAddRequest tells a controller that a task was added to a queue it serves.
	SignalTaskAddRequest struct {
		TaskQueueName string                `json:"task_queue_name"`
		TaskQueueType enumspb.TaskQueueType `json:"task_queue_type"`
	}
)

// Validation outcomes.
const (
	ValidationResultSuccess ValidationResult = "success"
	ValidationResultFailed  ValidationResult = "failed"
)
