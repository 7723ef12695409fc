#ifndef BASELINE_H
#define BASELINE_H
#endif
