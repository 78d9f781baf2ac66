// RUN: rm -rf %t && mkdir %t
// A first process builds the kernel and leaves its PTX in the cache.
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels="state-in-place=true kernel-cache=%t/sm_90" -o /dev/null
// RUN: FileCheck %s --check-prefix=WRITTEN --input-file=%t/sm_90/nova_adamw_f32_x1.ptx
// A later process reads it instead of building it: a planted module is what
// the executable carries.
// RUN: printf '//\n.version 8.0\n.target sm_90\n.visible .entry planted_nova_adamw_f32_x1()\n{\nret;\n}\n' > %t/sm_90/nova_adamw_f32_x1.ptx
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels="state-in-place=true kernel-cache=%t/sm_90" | %python %lit_tools/print-executable-objects.py | FileCheck %s --check-prefix=READ
// An entry that is not a whole PTX module (a truncated write) is rebuilt and
// replaced.
// RUN: printf '//\n.version 8.0\n.visible .entry nova_adamw' > %t/sm_90/nova_adamw_f32_x1.ptx
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels="state-in-place=true kernel-cache=%t/sm_90" | %python %lit_tools/print-executable-objects.py | FileCheck %s --check-prefix=WRITTEN
// RUN: FileCheck %s --check-prefix=WRITTEN --input-file=%t/sm_90/nova_adamw_f32_x1.ptx
// Without a cache directory nothing is read.
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels="state-in-place=true" | %python %lit_tools/print-executable-objects.py | FileCheck %s --check-prefix=WRITTEN

// WRITTEN: .visible .entry nova_adamw_f32_x1(
// WRITTEN: ret;

// READ:     .visible .entry planted_nova_adamw_f32_x1()
// READ-NOT: .entry nova_adamw_f32_x1(

func.func @adamw(%step: tensor<f32>, %lr: tensor<f32>, %wd: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %eps: tensor<f32>, %p: tensor<1000xf32>, %g: tensor<1000xf32>, %m: tensor<1000xf32>, %v: tensor<1000xf32>) -> (tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>) {
  %np, %nm, %nv = nova.adamw %p, %g, %m, %v step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<1000xf32>
  return %np, %nm, %nv : tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>
}
