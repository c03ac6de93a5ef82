// `member unwedge` with the operator stopped: the lost-answer matrix of
// lost_unwedge.h (docs/server-faults.md#lost-answers). Its two writes are
// of two kinds, so the clusters of two cases are made ahead.
#include "lost_unwedge.h"

TEST_CASE("member unwedge (operator stopped): the answer to each write lost, then the same command again") {
  lost_unwedge::matrix(true, 2);
}
