// TFRT's eigen.* convolutions and f32 matrix products (cpu-kernels.md §4.1-
// §4.3, §4.7) against a reference: Inputs/eigen_btf.py writes integer
// inputs and the expected results of its own NumPy model of each kernel
// (not this runtime's output), so every result must be equal bit for bit.
// "same" and "valid" padding, strides 1 and 2 in each dimension, odd
// padding split, bias, batch norm with and without relu; the large cases
// (a [4, 16, 16, 8] convolution, a 70x130x50 and a 1x300x700 product) are
// split over both threads on mstd:2, by images, rows and columns, and a
// convolution whose filter outweighs its input (without an epilogue, with
// bias, with batch norm and relu) by output channels. Then the
// training gradients (§4.8, §4.9): the convolution's two exactly, the batch
// norm's within TFRT's test tolerance.
// RUN: python3 %S/Inputs/eigen_btf.py %t.btf
// RUN: sed 's|PATH|%t.btf|' %s > %t.mlir
// RUN: mlir-to-bef %t.mlir | bef_executor | FileCheck %s
// RUN: mlir-to-bef %t.mlir | bef_executor --work_queue_type=mstd:2 | FileCheck %s

// CHECK-LABEL: --- Running 'conv_same_stride_1':
func.func @conv_same_stride_1() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 0
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 1
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 2
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 7 : i64, 9 : i64, 4 : i64]
  %c1 = "eigen.conv2d.f32"(%x, %f, %out, %c0)
      {padding = "same", strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_same_stride_2_odd_padding':
func.func @conv_same_stride_2_odd_padding() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 0
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 3
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 4
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 4 : i64, 5 : i64, 4 : i64]
  %c1 = "eigen.conv2d.f32"(%x, %f, %out, %c0)
      {padding = "same", strides = [2 : i64, 2 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_valid_stride_2x1':
func.func @conv_valid_stride_2x1() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 0
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 1
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 5
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 3 : i64, 7 : i64, 4 : i64]
  %c1 = "eigen.conv2d.f32"(%x, %f, %out, %c0)
      {padding = "VALID", strides = [2 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_bias':
func.func @conv_bias() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 0
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 1
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 7
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %bias_index = tfrt.constant.i32 6
  %bias = "btf.read_dense_tensor.f32.1"(%path, %bias_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 7 : i64, 9 : i64, 4 : i64]
  %c1 = "eigen.conv2d.bias.f32"(%x, %f, %bias, %out, %c0)
      {padding = "Same", strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_batch_norm':
func.func @conv_batch_norm() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 0
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 1
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 12
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %scale_index = tfrt.constant.i32 8
  %scale = "btf.read_dense_tensor.f32.1"(%path, %scale_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %offset_index = tfrt.constant.i32 9
  %offset = "btf.read_dense_tensor.f32.1"(%path, %offset_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %mean_index = tfrt.constant.i32 10
  %mean = "btf.read_dense_tensor.f32.1"(%path, %mean_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %variance_index = tfrt.constant.i32 11
  %variance = "btf.read_dense_tensor.f32.1"(%path, %variance_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 3 : i64, 7 : i64, 4 : i64]
  %c1 = "eigen.conv2d.batch_norm.f32"(%x, %f, %scale, %offset, %mean, %variance, %out, %c0)
      {epsilon = 1.0 : f32, padding = "valid", strides = [2 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_batch_norm_relu':
func.func @conv_batch_norm_relu() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 0
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 1
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 13
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %scale_index = tfrt.constant.i32 8
  %scale = "btf.read_dense_tensor.f32.1"(%path, %scale_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %offset_index = tfrt.constant.i32 9
  %offset = "btf.read_dense_tensor.f32.1"(%path, %offset_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %mean_index = tfrt.constant.i32 10
  %mean = "btf.read_dense_tensor.f32.1"(%path, %mean_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %variance_index = tfrt.constant.i32 11
  %variance = "btf.read_dense_tensor.f32.1"(%path, %variance_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 3 : i64, 7 : i64, 4 : i64]
  %c1 = "eigen.conv2d.batch_norm.relu.f32"(%x, %f, %scale, %offset, %mean, %variance, %out, %c0)
      {epsilon = 1.0 : f32, padding = "valid", strides = [2 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// A filter of 3x3x32x72 on a 3x3x32 input: on mstd:2 two parts of 48 and
// 24 output channels, each convolved into a buffer of its own and copied
// into its channels of the output.
// CHECK-LABEL: --- Running 'conv_by_output_channels':
func.func @conv_by_output_channels() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 38
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 39
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 72 : i64]
  %c1 = "eigen.conv2d.f32"(%x, %f, %out, %c0)
      {padding = "same", strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %expected_index = tfrt.constant.i32 40
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_bias_by_output_channels':
func.func @conv_bias_by_output_channels() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 38
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 39
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %bias_index = tfrt.constant.i32 41
  %bias = "btf.read_dense_tensor.f32.1"(%path, %bias_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 72 : i64]
  %c1 = "eigen.conv2d.bias.f32"(%x, %f, %bias, %out, %c0)
      {padding = "same", strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %expected_index = tfrt.constant.i32 42
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_batch_norm_relu_by_output_channels':
func.func @conv_batch_norm_relu_by_output_channels() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 38
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 39
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %scale_index = tfrt.constant.i32 43
  %scale = "btf.read_dense_tensor.f32.1"(%path, %scale_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %offset_index = tfrt.constant.i32 44
  %offset = "btf.read_dense_tensor.f32.1"(%path, %offset_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %mean_index = tfrt.constant.i32 45
  %mean = "btf.read_dense_tensor.f32.1"(%path, %mean_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %variance_index = tfrt.constant.i32 46
  %variance = "btf.read_dense_tensor.f32.1"(%path, %variance_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 3 : i64, 3 : i64, 72 : i64]
  %c1 = "eigen.conv2d.batch_norm.relu.f32"(%x, %f, %scale, %offset, %mean, %variance, %out, %c0)
      {epsilon = 1.0 : f32, padding = "same", strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %expected_index = tfrt.constant.i32 47
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_four_images':
func.func @conv_four_images() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 20
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 21
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 22
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [4 : i64, 16 : i64, 16 : i64, 8 : i64]
  %c1 = "eigen.conv2d.f32"(%x, %f, %out, %c0)
      {padding = "same", strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// One image (on mstd:2: two calls of 8 rows each, padding top in one and
// bottom in the other) and three (a share of 1.5 images: whole images
// and rows of one, stride 2).
// CHECK-LABEL: --- Running 'conv_one_image_by_rows':
func.func @conv_one_image_by_rows() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 34
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 21
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 35
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [1 : i64, 16 : i64, 16 : i64, 8 : i64]
  %c1 = "eigen.conv2d.f32"(%x, %f, %out, %c0)
      {padding = "same", strides = [1 : i64, 1 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_three_images_stride_2':
func.func @conv_three_images_stride_2() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 36
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %f_index = tfrt.constant.i32 21
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 37
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %out = tfrt_dht.create_uninitialized_tensor.f32.4 [3 : i64, 17 : i64, 8 : i64, 8 : i64]
  %c1 = "eigen.conv2d.f32"(%x, %f, %out, %c0)
      {padding = "same", strides = [2 : i64, 2 : i64]}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %out, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'matmul_rows':
func.func @matmul_rows() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %a_index = tfrt.constant.i32 14
  %a = "btf.read_dense_tensor.f32.2"(%path, %a_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %b_index = tfrt.constant.i32 15
  %b = "btf.read_dense_tensor.f32.2"(%path, %b_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 16
  %expected = "btf.read_dense_tensor.f32.2"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %one = tfrt.constant.f32 1.0
  %zero = tfrt.constant.f32 0.0
  %c = tfrt_dht.create_uninitialized_tensor.f32.2 [70 : i64, 50 : i64]
  %c1 = "eigen.matmul.f32"(%one, %a, %b, %zero, %c, %c0) : (f32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, f32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %c, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'matmul_one_row':
func.func @matmul_one_row() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %a_index = tfrt.constant.i32 17
  %a = "btf.read_dense_tensor.f32.2"(%path, %a_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %b_index = tfrt.constant.i32 18
  %b = "btf.read_dense_tensor.f32.2"(%path, %b_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 19
  %expected = "btf.read_dense_tensor.f32.2"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %one = tfrt.constant.f32 1.0
  %zero = tfrt.constant.f32 0.0
  %c = tfrt_dht.create_uninitialized_tensor.f32.2 [1 : i64, 700 : i64]
  %c1 = "eigen.matmul.f32"(%one, %a, %b, %zero, %c, %c0) : (f32, !tfrt_tensor.tensor, !tfrt_tensor.tensor, f32, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %c, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_grad_filter':
func.func @conv_grad_filter() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %x_index = tfrt.constant.i32 0
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %dy_index = tfrt.constant.i32 23
  %dy = "btf.read_dense_tensor.f32.4"(%path, %dy_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 24
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %grad = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 3 : i64, 3 : i64, 4 : i64]
  %c1 = "eigen.conv2d.grad.filter.f32"(%dy, %x, %grad, %c0) {padding = "same", strides = [2 : i64, 2 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %grad, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// CHECK-LABEL: --- Running 'conv_grad_input':
func.func @conv_grad_input() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %f_index = tfrt.constant.i32 3
  %f = "btf.read_dense_tensor.f32.4"(%path, %f_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %dy_index = tfrt.constant.i32 23
  %dy = "btf.read_dense_tensor.f32.4"(%path, %dy_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_index = tfrt.constant.i32 25
  %expected = "btf.read_dense_tensor.f32.4"(%path, %expected_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %grad = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 7 : i64, 9 : i64, 3 : i64]
  %c1 = "eigen.conv2d.grad.input.f32"(%dy, %f, %grad, %c0) {padding = "same", strides = [2 : i64, 2 : i64]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %equal, %cmp = "tfrt_dht.tensor_equal.f32"(%expected, %grad, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %printed = tfrt.print.i1 %equal, %cmp
  tfrt.return
}
// CHECK-NEXT: int1 = 1

// The batch-norm gradients: float results, within TFRT's test tolerance.
// CHECK-LABEL: --- Running 'batch_norm_grad':
func.func @batch_norm_grad() {
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {value = "PATH"} : () -> !tfrt.string
  %dy_index = tfrt.constant.i32 26
  %dy = "btf.read_dense_tensor.f32.4"(%path, %dy_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %x_index = tfrt.constant.i32 27
  %x = "btf.read_dense_tensor.f32.4"(%path, %x_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %gamma_index = tfrt.constant.i32 28
  %gamma = "btf.read_dense_tensor.f32.1"(%path, %gamma_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %mean_index = tfrt.constant.i32 29
  %mean = "btf.read_dense_tensor.f32.1"(%path, %mean_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %variance_index = tfrt.constant.i32 30
  %variance = "btf.read_dense_tensor.f32.1"(%path, %variance_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_dx_index = tfrt.constant.i32 31
  %expected_dx = "btf.read_dense_tensor.f32.4"(%path, %expected_dx_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_gamma_index = tfrt.constant.i32 32
  %expected_gamma = "btf.read_dense_tensor.f32.1"(%path, %expected_gamma_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %expected_beta_index = tfrt.constant.i32 33
  %expected_beta = "btf.read_dense_tensor.f32.1"(%path, %expected_beta_index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %dx = tfrt_dht.create_uninitialized_tensor.f32.4 [2 : i64, 3 : i64, 4 : i64, 5 : i64]
  %dgamma = tfrt_dht.create_uninitialized_tensor.f32.1 [5 : i64]
  %dbeta = tfrt_dht.create_uninitialized_tensor.f32.1 [5 : i64]
  %c1, %c2, %c3 = "eigen.batch_norm.grad.f32"(%dy, %x, %gamma, %mean, %variance, %c0, %dx, %dgamma, %dbeta) {epsilon = 0.5 : f32}
      : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor) -> (!tfrt.chain, !tfrt.chain, !tfrt.chain)
  %ok0, %k0 = "tfrt_dht.tensor_allclose.100000ulp.f32"(%expected_dx, %dx, %c1) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %p0 = tfrt.print.i1 %ok0, %k0
  %ok1, %k1 = "tfrt_dht.tensor_allclose.100000ulp.f32"(%expected_gamma, %dgamma, %c2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %p1 = tfrt.print.i1 %ok1, %k1
  %ok2, %k2 = "tfrt_dht.tensor_allclose.100000ulp.f32"(%expected_beta, %dbeta, %c3) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %p2 = tfrt.print.i1 %ok2, %k2
  tfrt.return
}
// CHECK-NEXT: int1 = 1
// CHECK-NEXT: int1 = 1
// CHECK-NEXT: int1 = 1

// CHECK-NOT: {{.}}
