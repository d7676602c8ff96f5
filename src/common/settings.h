/* src/common/settings.h -- the GCUBA* environment as one typed struct,
   parsed and validated by one parser (settings.c), for every part of the
   library that reads a setting: nothing else calls getenv for them.
   This file is part of gcuba. */
#ifndef GCUBA_SETTINGS_H
#define GCUBA_SETTINGS_H

#ifdef __cplusplus
extern "C" {
#endif

/* the most GPUs one call uses (GCUBA_DEVICES) */
#define GCUBA_MAXDEVICES 64

/* GCUBA_DEVICE */
enum { GCUBA_WANT_AUTO = 0, GCUBA_WANT_CPU = 1, GCUBA_WANT_GPU = 2 };
/* the form of GCUBA_DEVICES (or of SPEC in auto:SPEC) */
enum {
  GCUBA_DEVS_ALL = 0,  /* every GPU (also plain auto) */
  GCUBA_DEVS_COUNT = 1, /* the first devs_n */
  GCUBA_DEVS_LIST = 2   /* devs[0 .. devs_n) */
};

typedef struct gcuba_settings {
  int verbose;             /* GCUBAVERBOSE, 0..3 (0 when unset) */
  int cores;               /* GCUBACORES, >= 0; -1 when unset */
  int device;              /* GCUBA_DEVICE: GCUBA_WANT_* */
  /* GCUBA_DEVICES: set (else the default, auto); auto or auto:SPEC, and
     the GPUs SPEC (or the whole value) names */
  int devs_set, devs_auto, devs_form, devs_n;
  int devs[GCUBA_MAXDEVICES];
  double devs_after;       /* GCUBA_DEVICES_AFTER, ms; -1 when unset */
  double memlimit;         /* GCUBA_MEMLIMIT, bytes; 0 when unset */
  long long minbatch;      /* GCUBA_CUHRE_MINBATCH, >= 1; 0 when unset */
  int cuts;                /* GCUBA_CUTS: 0 or 1 (1 when unset) */
  long long divonne_ahead; /* GCUBA_DIVONNE_AHEAD, >= 1; 0 when unset */
  int vegas_nbins;         /* GCUBA_VEGAS_NBINS, 2..1024; 0 when unset */
  long long vegas_adapt;   /* GCUBA_VEGAS_ADAPT, >= 0; -1: auto or unset */
  double vegas_beta;       /* GCUBA_VEGAS_BETA, 0..1; 0 when unset */
  /* the processes of an MPI job on this node, as its launcher says
     (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS,
     SLURM_STEP_TASKS_PER_NODE; 1 when none says) */
  int node_processes;
  /* the text of the value that did not parse, for messages */
  char devs_text[64];
} gcuba_settings;

/* The settings of the environment now into *s: 0, or GCUBA_FAIL_ENV
   (the first variable that does not parse, with the message into why,
   n bytes: "NAME=\"value\": expected ...").  Parsed again only when a
   variable changed since the last call (thread-safe). */
int gcuba_settings_get(gcuba_settings *s, char *why, int n);

/* The parser itself: name, value (NULL or empty: unset) into *s, which
   holds the defaults of gcuba_settings_defaults for what is unset;
   0, or -1 with "expected ..." into why.  Unknown names are -1 too.
   For tests (tests/test-env.c) and gcuba_settings_get. */
void gcuba_settings_defaults(gcuba_settings *s);
int gcuba_settings_parse(gcuba_settings *s, const char *name,
                         const char *value, char *why, int n);

/* a byte count with an optional K, M, G or T suffix (powers of 1024):
   0, or -1 */
int gcuba_settings_bytes(const char *s, double *bytes);

#ifdef __cplusplus
}
#endif
#endif
