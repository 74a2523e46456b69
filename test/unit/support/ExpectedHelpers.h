//===- ExpectedHelpers.h - llvm::Expected and Error in gtest ----*- C++ -*-===//
//
// TileSupport returns llvm::Expected<T> and llvm::Error. These helpers read
// them in test expectations and consume every error, as LLVM requires of an
// Expected or Error before it is destroyed.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_UNIT_SUPPORT_EXPECTEDHELPERS_H
#define TILEC_TEST_UNIT_SUPPORT_EXPECTEDHELPERS_H

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <string>
#include <utility>

namespace tilec::test {

/// Success when \p E holds a value, else a failure showing its message (the
/// error is consumed). Why: ASSERT_TRUE(hasValue(E)) stops a test that cannot
/// go on and says why.
template <typename T>::testing::AssertionResult hasValue(llvm::Expected<T> &E) {
  if (E)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << llvm::toString(E.takeError());
}

/// The value of \p E; on an error, a test failure showing its message and T().
template <typename T> T valueOf(llvm::Expected<T> E) {
  if (E)
    return std::move(*E);
  ADD_FAILURE() << llvm::toString(E.takeError());
  return T();
}

/// The message of \p Err, or "" for success.
inline std::string errorMessage(llvm::Error Err) {
  return llvm::toString(std::move(Err));
}

/// The message of \p E's error, or "" when it holds a value.
template <typename T> std::string errorMessage(llvm::Expected<T> E) {
  return errorMessage(E.takeError());
}

} // namespace tilec::test

#endif // TILEC_TEST_UNIT_SUPPORT_EXPECTEDHELPERS_H
