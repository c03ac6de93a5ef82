// `member unwedge` with the operator running: the lost-answer matrix of
// lost_unwedge.h (docs/server-faults.md#lost-answers).
#include "lost_unwedge.h"

TEST_CASE("member unwedge (operator running): the answer to each write lost, then the same command again") {
  lost_unwedge::matrix(false, 1);
}
