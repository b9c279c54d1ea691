// tfrt.get_device looks the name up in the host device manager.
// RUN: mlir-to-bef %s | not bef_executor 2>&1 | FileCheck %s

// CHECK-LABEL: --- Running 'devices':
func.func @devices() -> (!tfrt.device, !tfrt.device) {
  %ch = tfrt.new.chain
  %cpu = tfrt.get_device %ch {device_name = "CPU:0"}
  %gpu = tfrt.get_device %ch {device_name = "GPU:7"}
  tfrt.return %cpu, %gpu : !tfrt.device, !tfrt.device
}
// CHECK: device.mlir:[[@LINE-3]]:10: error: unexpected error: runtime error: cannot find device GPU:7
// CHECK: 'devices' returned !tfrt.device value,<<error: cannot find device GPU:7>>
