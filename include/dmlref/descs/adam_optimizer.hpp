// The desc of ADAM_OPTIMIZER, with DirectML.h's struct and field names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// One Adam step (DML_ADAM_OPTIMIZER_OPERATOR_DESC), with X, M, V, G, T the five input tensors:
//   M = Beta1 * M + (1.0 - Beta1) * G
//   V = Beta2 * V + (1.0 - Beta2) * G * G
//   Alpha = sqrt(1.0 - pow(Beta2, T)) / (1.0 - pow(Beta1, T))
//   X -= LearningRate * Alpha * M / (sqrt(V) + Epsilon)
// and the outputs X, M, V.
struct DML_ADAM_OPTIMIZER_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ADAM_OPTIMIZER;
    TensorDesc InputParametersTensor;
    TensorDesc InputFirstMomentTensor;
    TensorDesc InputSecondMomentTensor;
    TensorDesc GradientTensor;
    TensorDesc TrainingStepTensor;
    TensorDesc OutputParametersTensor;
    TensorDesc OutputFirstMomentTensor;
    TensorDesc OutputSecondMomentTensor;
    float LearningRate = 0;
    float Beta1 = 0;
    float Beta2 = 0;
    float Epsilon = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputParametersTensor", s.InputParametersTensor, TensorRole::Input);
        v.tensor("InputFirstMomentTensor", s.InputFirstMomentTensor, TensorRole::Input);
        v.tensor("InputSecondMomentTensor", s.InputSecondMomentTensor, TensorRole::Input);
        v.tensor("GradientTensor", s.GradientTensor, TensorRole::Input);
        v.tensor("TrainingStepTensor", s.TrainingStepTensor, TensorRole::Input);
        v.tensor("OutputParametersTensor", s.OutputParametersTensor, TensorRole::Output);
        v.tensor("OutputFirstMomentTensor", s.OutputFirstMomentTensor, TensorRole::Output);
        v.tensor("OutputSecondMomentTensor", s.OutputSecondMomentTensor, TensorRole::Output);
        v.float32("LearningRate", s.LearningRate);
        v.float32("Beta1", s.Beta1);
        v.float32("Beta2", s.Beta2);
        v.float32("Epsilon", s.Epsilon);
    }
};

}  // namespace dmlref
