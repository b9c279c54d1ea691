// bef-to-mlir on bytes that are not a valid BEF file: TFRT's messages, exit
// status 1, never a crash.
// RUN: printf '' > %t.empty
// RUN: not bef-to-mlir %t.empty 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: printf '\x0b\xee\x00' > %t.magic
// RUN: not bef-to-mlir %t.magic 2>&1 | FileCheck %s --check-prefix=MAGIC
// RUN: printf '\x0b\xef\x00\x00\x10' > %t.truncated
// RUN: not bef-to-mlir %t.truncated 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: printf '\x0b\xef\x00' > %t.header
// RUN: not bef-to-mlir %t.header 2>&1 | FileCheck %s --check-prefix=HEADER

// EMPTY: error: BEF file is empty.
// MAGIC: error: Invalid BEF file header detected
// MAGIC-NEXT: error: Invalid BEF file header.
// TRUNCATED: error: Invalid BEF section header.
// HEADER: warning: Missing AttributeTypes, AttributeNames or RegisterTypes sections.
// HEADER-NEXT: error: Invalid Types section.
