#define _GNU_SOURCE
#include "CThreadNames.h"

#include <pthread.h>
#include <string.h>

int logbook_name_current_thread(const char *name) {
#if defined(__APPLE__)
    return pthread_setname_np(name);
#elif defined(__linux__)
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = '\0';
    return pthread_setname_np(pthread_self(), cut);
#else
    (void)name;
    return 0;
#endif
}
