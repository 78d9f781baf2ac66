//===- PopulatePatterns.h - nova -> linalg, by op family --------*- C++ -*-===//

#ifndef NOVA_CONVERSION_NOVATOLINALG_POPULATEPATTERNS_H
#define NOVA_CONVERSION_NOVATOLINALG_POPULATEPATTERNS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::nova::nova_to_linalg {

void populateElementwisePatterns(RewritePatternSet &patterns);
void populateMatmulPatterns(RewritePatternSet &patterns);
void populateConvolutionPatterns(RewritePatternSet &patterns);
void populateRandomPatterns(RewritePatternSet &patterns);
void populateReductionsPatterns(RewritePatternSet &patterns);
void populateDataMovementPatterns(RewritePatternSet &patterns);
void populateOptimizersPatterns(RewritePatternSet &patterns);

} // namespace mlir::nova::nova_to_linalg

#endif // NOVA_CONVERSION_NOVATOLINALG_POPULATEPATTERNS_H
