/*
 * zluda driver entry: the part of dist/lib/libcuda.so.1 that is not generated.
 *
 * On the first call it boots a JVM inside the host process and starts the Java driver
 * (dev.zluda.runtime.entry.NativeEntry.boot, through JNI); every exported CUDA function (zluda_exports.c, generated)
 * then calls zl_call(id, words), which enters Java through JNI for the booting thread's first calls and through an
 * FFM upcall stub (NativeEntry.upcallStub, made on first need) after (dispatch), except cuCtxGetCurrent and
 * cuCtxGetDevice, answered here while the Java driver's published answer holds (fast_call). The JVM is found
 * through ZLUDA_JAVA_HOME, else the dist/jre next to this library, else JAVA_HOME; its class path
 * is ZLUDA_CLASSPATH (':'-separated) or every jar in the directory of this library; extra JVM
 * options come from ZLUDA_JVM_OPTS (space-separated). If the JVM cannot start, every call returns
 * CUDA_ERROR_NOT_INITIALIZED and one message goes to stderr. The JVM starts from the AOT cache dist/lib/driver.aot
 * when the build made one (aot_cache: cli/pom.xml trains it with dev.zluda.runtime.entry.AotTraining); ZLUDA_AOT=0
 * starts it without.
 *
 * Life inside someone else's process: the host's crash must look like the host's crash.
 * - -Xrs keeps the JVM off the host's shutdown signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT).
 * - HotSpot still installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL (its implicit null checks,
 *   safepoint polls and stack guard pages need them) and SIGPIPE, SIGXFSZ (which it swallows), and
 *   treats a fault it cannot attribute to Java code as its own fatal error (a banner, hs_err_pid*.log
 *   in the working directory, abort: exit 134). HotSpot saves a handler installed before
 *   JNI_CreateJavaVM and calls it for a signal it does not handle itself (UseSignalChaining, on by
 *   default). So before creating the JVM, host_signals() installs zl_host_signal for those signals,
 *   remembering the host's disposition. Called by HotSpot, it gives the signal to the host as if no
 *   JVM were there: to the host's own handler if it had one, else with the host's disposition
 *   restored (SIG_DFL: the process dies of the signal, exit 139 for SIGSEGV; SIG_IGN for SIGPIPE:
 *   nothing happens). A fault in Java code that HotSpot does not recognise (a wild host pointer read
 *   by the driver) ends the same way: as the program's own SIGSEGV.
 * - A genuine JVM crash writes its report to -XX:ErrorFile in the temporary directory ($TMPDIR, else
 *   /tmp: zluda-hs_err_pid<pid>.log, never the host's working directory), and HotSpot's banner on
 *   stderr says where (zluda run's summary says it again).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <jni.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zluda_entry.h"

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_UNKNOWN 999

typedef int (*zl_dispatch_fn)(int, uint64_t *);
typedef jint (*create_vm_fn)(JavaVM **, void **, void *);
typedef jint (*created_vms_fn)(JavaVM **, jsize, jsize *);

static pthread_once_t boot_once = PTHREAD_ONCE_INIT;
/* Whether the driver started (boot succeeded). */
static int booted;
/* The FFM upcall stub NativeEntry.upcallStub made (made on first need, see dispatch), or NULL. */
static _Atomic(zl_dispatch_fn) dispatch_fn;
static JavaVM *the_vm;
static jclass entry_class;                 /* a global reference to NativeEntry */
static jmethodID call_method, stub_method; /* NativeEntry.call(int, long), NativeEntry.upcallStub() */
static pthread_mutex_t stub_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * The thread that started the JVM calls the driver through JNI for its first JNI_CALLS calls: making the FFM upcall
 * stub costs the start-up tens of milliseconds (classes spun at run time, which no AOT cache keeps), more than a
 * short program's calls cost through JNI. Every other thread, and this one after those calls, uses the stub.
 */
#define JNI_CALLS 2048
static __thread JNIEnv *boot_env;
static __thread int jni_calls_left;

/*
 * The native fast path: cuCtxGetCurrent and cuCtxGetDevice answered here, without entering the JVM, from what the
 * Java driver last published for the calling thread (NativeFastPath.java; the layouts below are its offsets).
 * Published: the thread's current context, its device and whether cuCtxGetDevice may answer it (a context is current
 * and has no sticky error), with the global epoch read before the Java driver computed them. The answer is used only
 * while that epoch is still the global one and the driver enables the function (no interceptor on it: off while the
 * trace layer records). The Java driver bumps the epoch whenever another thread can change what a thread's answer
 * would be (a context destroyed, released or reset; a kernel fault's sticky error; deinitialisation); a thread's own
 * calls of any other function forget its answer (they may change its current context).
 */
struct zl_fast {                 /* NativeFastPath.SHARED_*: epoch at 0, enabled at 8 */
    _Atomic uint64_t epoch;      /* starts at 1; 0 is never current */
    volatile uint8_t *enabled;   /* by function id: 1 when the fast path may answer it */
};
struct zl_fast_tls {             /* NativeFastPath.TLS_*: ctx 0, device 8, usable 12, epoch 16 */
    uint64_t ctx;
    int32_t device;
    int32_t usable;
    uint64_t epoch;              /* 0: nothing published */
};
static struct zl_fast fast = {1, NULL};
static __thread struct zl_fast_tls fast_tls;
static int id_ctx_get_current = -1, id_ctx_get_device = -1;
int cuCtxGetCurrent(void *pctx);
int cuCtxGetDevice(void *device);

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "[ZLUDA] cannot start the zluda driver: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
}

/* Directory of this library (dist/lib when installed). */
static int own_dir(char *buf, size_t cap) {
    Dl_info info;
    if (!dladdr((void *)&zl_call, &info) || !info.dli_fname) return 0;
    char real[PATH_MAX];
    if (!realpath(info.dli_fname, real)) snprintf(real, sizeof real, "%s", info.dli_fname);
    char *slash = strrchr(real, '/');
    if (!slash) return 0;
    *slash = 0;
    snprintf(buf, cap, "%s", real);
    return 1;
}

static void *open_jvm(const char *java_home, char *tried, size_t cap) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/lib/server/libjvm.so", java_home);
    size_t len = strlen(tried);
    snprintf(tried + len, cap - len, "%s%s", len ? ", " : "", path);
    return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ZLUDA_CLASSPATH, else every jar in lib_dir in strcmp order of the names (the order the AOT cache was made with:
   a cache is used only by a JVM whose class path starts with the one it was trained on). */
static char *class_path(const char *lib_dir) {
    const char *env = getenv("ZLUDA_CLASSPATH");
    if (env && *env) return strdup(env);
    DIR *d = opendir(lib_dir);
    if (!d) return NULL;
    size_t n = 0, cap = 64;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while (names && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".jar") != 0) continue;
        if (n == cap) {
            char **bigger = realloc(names, (cap *= 2) * sizeof *names);
            if (!bigger) break;
            names = bigger;
        }
        if ((names[n] = strdup(e->d_name)) != NULL) n++;
    }
    closedir(d);
    if (!names) return NULL;
    qsort(names, n, sizeof *names, by_name);
    size_t total = 1;
    for (size_t i = 0; i < n; i++) total += strlen(lib_dir) + strlen(names[i]) + 2;
    char *cp = malloc(total);
    size_t len = 0;
    if (cp) cp[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (cp) len += (size_t)sprintf(cp + len, "%s%s/%s", len ? ":" : "", lib_dir, names[i]);
        free(names[i]);
    }
    free(names);
    return cp;
}

/* The signals HotSpot takes over even with -Xrs, and the host's disposition of each before the JVM came. */
static const int host_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGPIPE, SIGXFSZ};
#define HOST_SIGS ((int)(sizeof host_sigs / sizeof host_sigs[0]))
static struct sigaction host_action[HOST_SIGS];

static int host_slot(int sig) {
    for (int i = 0; i < HOST_SIGS; i++) if (host_sigs[i] == sig) return i;
    return -1;
}

/*
 * Called by HotSpot's handler for a signal HotSpot did not handle (a fault in the host's code, or
 * one it cannot attribute to Java code). Gives the signal to the host: its own handler when it had
 * one, else its disposition restored. For a fault (si_code > 0) returning re-executes the faulting
 * instruction, which now faults under the host's disposition: SIG_DFL ends the process with the
 * signal, as it would without zluda. A signal sent by kill or raise (si_code <= 0) is raised again.
 */
static void zl_host_signal(int sig, siginfo_t *info, void *uc) {
    int k = host_slot(sig);
    if (k < 0) return;
    struct sigaction *h = &host_action[k];
    int has_handler = (h->sa_flags & SA_SIGINFO) ? h->sa_sigaction != NULL
                                                 : (h->sa_handler != SIG_DFL && h->sa_handler != SIG_IGN);
    if (has_handler) {
        if (h->sa_flags & SA_RESETHAND) {
            struct sigaction once = *h;
            h->sa_handler = SIG_DFL;
            h->sa_flags &= ~SA_SIGINFO;
            if (once.sa_flags & SA_SIGINFO) once.sa_sigaction(sig, info, uc); else once.sa_handler(sig);
        } else if (h->sa_flags & SA_SIGINFO) {
            h->sa_sigaction(sig, info, uc);
        } else {
            h->sa_handler(sig);
        }
        return;
    }
    int fault = info != NULL && info->si_code > 0 && sig != SIGPIPE && sig != SIGXFSZ;
    if (h->sa_handler == SIG_IGN && !fault) return; /* the host ignores it (SIGPIPE in a server) */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (!fault) raise(sig);
}

/* Before JNI_CreateJavaVM: zl_host_signal in front of the host's disposition of each signal HotSpot takes. */
static void host_signals(void) {
    for (int i = 0; i < HOST_SIGS; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = zl_host_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        if (sigaction(host_sigs[i], &sa, &host_action[i]) != 0) memset(&host_action[i], 0, sizeof host_action[i]);
    }
}

/* -XX:ErrorFile and -XX:ReplayDataFile in the temporary directory ($TMPDIR when it is a directory, else /tmp). */
static void crash_files(char *error_opt, char *replay_opt, size_t cap) {
    const char *tmp = getenv("TMPDIR");
    struct stat st;
    if (!tmp || tmp[0] != '/' || stat(tmp, &st) != 0 || !S_ISDIR(st.st_mode)) tmp = "/tmp";
    snprintf(error_opt, cap, "-XX:ErrorFile=%s/zluda-hs_err_pid%%p.log", tmp);
    snprintf(replay_opt, cap, "-XX:ReplayDataFile=%s/zluda-replay_pid%%p.log", tmp);
}

/*
 * -XX:AOTCache=<lib_dir>/driver.aot into opt when that file exists, ZLUDA_AOT is not 0 and the extra JVM options jo
 * name no AOT cache or CDS archive of their own (-XX:AOTCache, -XX:AOTCacheOutput, -XX:AOTMode, -XX:SharedArchiveFile,
 * -Xshare): 1 then, else 0.
 */
static int aot_cache(const char *lib_dir, const char *jo, char *opt, size_t cap) {
    const char *off = getenv("ZLUDA_AOT");
    if (off && strcmp(off, "0") == 0) return 0;
    if (jo && (strstr(jo, "AOTCache") || strstr(jo, "AOTMode") || strstr(jo, "SharedArchiveFile") || strstr(jo, "-Xshare"))) return 0;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/driver.aot", lib_dir) >= sizeof path) return 0;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return 0;
    return (size_t)snprintf(opt, cap, "-XX:AOTCache=%s", path) < cap;
}

/* At exit, the Java side ends the capture (PROCESS_END) when the trace layer is on. */
static created_vms_fn created_vms;

static int dispatch(int id, uint64_t *words);

static void at_exit(void) {
    /* a Java host program's JVM is destroyed before the C library's exit handlers run: nothing to call then */
    JavaVM *vm = NULL;
    jsize n = 0;
    if (!booted || !created_vms || created_vms(&vm, 1, &n) != JNI_OK || n == 0) return;
    dispatch(-1, NULL);
}

/* A class by name from the system (application) class loader, or NULL with no exception pending. */
static jclass system_class(JNIEnv *env, const char *name) {
    jclass loader_class = (*env)->FindClass(env, "java/lang/ClassLoader");
    jmethodID get = loader_class ? (*env)->GetStaticMethodID(env, loader_class, "getSystemClassLoader", "()Ljava/lang/ClassLoader;") : NULL;
    jobject loader = get ? (*env)->CallStaticObjectMethod(env, loader_class, get) : NULL;
    jmethodID load = loader ? (*env)->GetMethodID(env, loader_class, "loadClass", "(Ljava/lang/String;)Ljava/lang/Class;") : NULL;
    jstring jname = load ? (*env)->NewStringUTF(env, name) : NULL;
    jobject c = jname ? (*env)->CallObjectMethod(env, loader, load, jname) : NULL;
    if ((*env)->ExceptionCheck(env)) { (*env)->ExceptionClear(env); return NULL; }
    return (jclass)c;
}

static void boot(void) {
    char lib_dir[PATH_MAX] = ".";
    own_dir(lib_dir, sizeof lib_dir);
    char tried[4 * PATH_MAX] = "";
    void *jvm_lib = NULL;
    const char *zh = getenv("ZLUDA_JAVA_HOME");
    if (zh && *zh) jvm_lib = open_jvm(zh, tried, sizeof tried);
    if (!jvm_lib) {
        char jre[PATH_MAX];
        snprintf(jre, sizeof jre, "%s/../jre", lib_dir);
        jvm_lib = open_jvm(jre, tried, sizeof tried);
    }
    const char *jh = getenv("JAVA_HOME");
    if (!jvm_lib && jh && *jh) jvm_lib = open_jvm(jh, tried, sizeof tried);
    if (!jvm_lib) { fail("no Java runtime found; tried", tried); return; }

    created_vms_fn created = (created_vms_fn)dlsym(jvm_lib, "JNI_GetCreatedJavaVMs");
    create_vm_fn create = (create_vm_fn)dlsym(jvm_lib, "JNI_CreateJavaVM");
    if (!created || !create) { fail("libjvm.so lacks the JNI invocation API", NULL); return; }
    created_vms = created;

    JavaVM *vm = NULL;
    JNIEnv *env = NULL;
    jsize n = 0;
    if (created(&vm, 1, &n) == JNI_OK && n > 0) {
        /* a JVM already runs in this process (a Java host program): use it */
        if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, NULL) != JNI_OK) { fail("cannot attach to the running JVM", NULL); return; }
    } else {
        char *cp = class_path(lib_dir);
        if (!cp || !*cp) { fail("no jars found in", lib_dir); free(cp); return; }
        char *cp_opt = malloc(strlen(cp) + 32);
        sprintf(cp_opt, "-Djava.class.path=%s", cp);
        free(cp);
        JavaVMOption opts[64];
        int nopt = 0;
        opts[nopt++].optionString = cp_opt;
        opts[nopt++].optionString = "-Xrs";
        opts[nopt++].optionString = "--enable-native-access=ALL-UNNAMED";
        opts[nopt++].optionString = "-XX:+UseSerialGC";
        opts[nopt++].optionString = "-Xss4m";
        /* no hsperfdata file in the temporary directory for a JVM inside someone else's program (jcmd still attaches) */
        opts[nopt++].optionString = "-XX:-UsePerfData";
        /* a JVM crash report goes to the temporary directory, not the host's working directory */
        static char error_opt[PATH_MAX + 64], replay_opt[PATH_MAX + 64];
        crash_files(error_opt, replay_opt, sizeof error_opt);
        opts[nopt++].optionString = error_opt;
        opts[nopt++].optionString = replay_opt;
        /* lz4-java uses sun.misc.Unsafe: without this JDK 25 warns on the host program's stderr */
        opts[nopt++].optionString = "--sun-misc-unsafe-memory-access=allow";
        const char *jo = getenv("ZLUDA_JVM_OPTS");
        /* the AOT cache made at mvn package (JDK 25, JEP 483/514: classes loaded and linked), when
           there is one and the options do not name another; one the JVM finds stale (other jars, another JVM) it ignores,
           silently with these log settings: the driver then starts as without it */
        static char aot_opt[PATH_MAX + 32];
        if (aot_cache(lib_dir, jo, aot_opt, sizeof aot_opt)) {
            opts[nopt++].optionString = aot_opt;
            opts[nopt++].optionString = "-Xlog:aot=off";
            opts[nopt++].optionString = "-Xlog:cds=off";
        }
        char *extra = NULL;
        if (jo && *jo) {
            extra = strdup(jo);
            for (char *save = NULL, *tok = strtok_r(extra, " \t", &save); tok && nopt < 64; tok = strtok_r(NULL, " \t", &save)) {
                opts[nopt++].optionString = tok;
            }
        }
        for (int i = 0; i < nopt; i++) opts[i].extraInfo = NULL;
        JavaVMInitArgs args;
        args.version = JNI_VERSION_21;
        args.nOptions = nopt;
        args.options = opts;
        args.ignoreUnrecognized = JNI_FALSE;
        host_signals();
        jint rc = create(&vm, (void **)&env, &args);
        free(cp_opt);
        /* extra's strings stay referenced by the JVM's argument list: keep them */
        if (rc != JNI_OK) {
            for (int i = 0; i < HOST_SIGS; i++) sigaction(host_sigs[i], &host_action[i], NULL);
            fail("JNI_CreateJavaVM failed", NULL);
            return;
        }
    }
    jclass entry = (*env)->FindClass(env, "dev/zluda/runtime/entry/NativeEntry");
    if (!entry) {
        /* called from Java code through a downcall (a Java host program), FindClass looks in the loader of the
           frame below, which may be the boot loader: the driver's classes are the application class loader's */
        (*env)->ExceptionClear(env);
        entry = system_class(env, "dev.zluda.runtime.entry.NativeEntry");
    }
    if (!entry) { (*env)->ExceptionDescribe(env); (*env)->ExceptionClear(env); fail("class dev.zluda.runtime.entry.NativeEntry not found on the class path", NULL); return; }
    jmethodID m = (*env)->GetStaticMethodID(env, entry, "boot", "(JIJ)Z");
    call_method = (*env)->GetStaticMethodID(env, entry, "call", "(IJ)I");
    stub_method = (*env)->GetStaticMethodID(env, entry, "upcallStub", "()J");
    if (!m || !call_method || !stub_method) { (*env)->ExceptionClear(env); fail("NativeEntry.boot, call or upcallStub missing", NULL); return; }
    for (int i = 0; i < zl_function_count; i++) {
        if (zl_functions[i] == (void *)cuCtxGetCurrent) id_ctx_get_current = i;
        if (zl_functions[i] == (void *)cuCtxGetDevice) id_ctx_get_device = i;
    }
    fast.enabled = calloc((size_t)zl_function_count, 1);
    jboolean ok = (*env)->CallStaticBooleanMethod(env, entry, m, (jlong)(uintptr_t)zl_functions, (jint)zl_function_count,
                                                 (jlong)(uintptr_t)&fast);
    if ((*env)->ExceptionCheck(env)) { (*env)->ExceptionDescribe(env); (*env)->ExceptionClear(env); fail("NativeEntry.boot threw", NULL); return; }
    if (!ok) { fail("NativeEntry.boot failed", NULL); return; }
    entry_class = (jclass)(*env)->NewGlobalRef(env, entry);
    if (!entry_class) { fail("out of memory", NULL); return; }
    the_vm = vm;
    boot_env = env;
    jni_calls_left = JNI_CALLS;
    booted = 1;
    atexit(at_exit);
}

/* The FFM upcall stub, made once (NativeEntry.upcallStub, through JNI), or NULL when that failed. */
static zl_dispatch_fn upcall_stub(void) {
    zl_dispatch_fn f = atomic_load_explicit(&dispatch_fn, memory_order_acquire);
    if (f) return f;
    pthread_mutex_lock(&stub_lock);
    f = atomic_load_explicit(&dispatch_fn, memory_order_acquire);
    if (!f) {
        JNIEnv *env = NULL;
        int attached = 0;
        if ((*the_vm)->GetEnv(the_vm, (void **)&env, JNI_VERSION_21) != JNI_OK) {
            if ((*the_vm)->AttachCurrentThreadAsDaemon(the_vm, (void **)&env, NULL) != JNI_OK) env = NULL;
            else attached = 1;
        }
        if (env) {
            jlong stub = (*env)->CallStaticLongMethod(env, entry_class, stub_method);
            if ((*env)->ExceptionCheck(env)) { (*env)->ExceptionDescribe(env); (*env)->ExceptionClear(env); stub = 0; }
            f = (zl_dispatch_fn)(uintptr_t)stub;
            if (attached) (*the_vm)->DetachCurrentThread(the_vm);
        }
        if (f) atomic_store_explicit(&dispatch_fn, f, memory_order_release);
        else fail("NativeEntry.upcallStub made no stub", NULL);
    }
    pthread_mutex_unlock(&stub_lock);
    return f;
}

/* One call into the Java driver: through JNI on the booting thread's first calls, else through the upcall stub. */
static int dispatch(int id, uint64_t *words) {
    zl_dispatch_fn f = atomic_load_explicit(&dispatch_fn, memory_order_acquire);
    if (f) return f(id, words);
    if (boot_env && jni_calls_left > 0) {
        jni_calls_left--;
        jint r = (*boot_env)->CallStaticIntMethod(boot_env, entry_class, call_method, (jint)id, (jlong)(uintptr_t)words);
        if ((*boot_env)->ExceptionCheck(boot_env)) { (*boot_env)->ExceptionClear(boot_env); return CUDA_ERROR_UNKNOWN; }
        return r;
    }
    f = upcall_stub();
    /* the FFM upcall stub attaches this thread to the JVM if it is not attached yet */
    return f ? f(id, words) : CUDA_ERROR_NOT_INITIALIZED;
}

/* cuCtxGetCurrent and cuCtxGetDevice: answered here when the published answer holds (struct zl_fast), else by Java. */
static int fast_call(int id, uint64_t *words) {
    volatile uint8_t *enabled = fast.enabled;
    if (enabled && enabled[id] && fast_tls.epoch == atomic_load_explicit(&fast.epoch, memory_order_acquire)) {
        if (id == id_ctx_get_current) {
            if (!words[0]) return CUDA_ERROR_INVALID_VALUE;
            *(uint64_t *)(uintptr_t)words[0] = fast_tls.ctx;
            return CUDA_SUCCESS;
        }
        if (fast_tls.usable) {
            if (!words[0]) return CUDA_ERROR_INVALID_VALUE;
            *(int32_t *)(uintptr_t)words[0] = fast_tls.device;
            return CUDA_SUCCESS;
        }
    }
    /* Java answers, and publishes this thread's answer into fast_tls (the word after the argument) */
    uint64_t ext[2] = {words[0], (uint64_t)(uintptr_t)&fast_tls};
    return dispatch(id, ext);
}

int zl_call(int id, uint64_t *words) {
    pthread_once(&boot_once, boot);
    if (!booted) return CUDA_ERROR_NOT_INITIALIZED;
    if (id == id_ctx_get_current || id == id_ctx_get_device) return fast_call(id, words);
    fast_tls.epoch = 0; /* this call may change the thread's current context */
    return dispatch(id, words);
}

void zl_fast_forget(void) {
    fast_tls.epoch = 0;
}
