/* fast-sgm.c with uint8 path-cost cells, for the parameters where they are
 * exact (see its top): twice the disparities a vector, and half the bytes
 * of the path rows the sweeps keep. */
#define SD_SGM_CELL_BYTES 1
#include "fast-sgm.c"
