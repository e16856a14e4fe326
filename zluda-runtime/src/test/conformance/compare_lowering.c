/*
 * Runs each float form of a directory that `LlvmConformance prepare --target sm_90_as_amd DIR` wrote — its original
 * PTX (DIR/native/NNNN.ptx) and its LLVM lowering (DIR/ptx/NNNN.ptx) — on the same N edge-heavy random inputs
 * (subnormals, the smallest normals, values near MAX, infinities, NaNs, zeros, operands of few significant bits,
 * sums and fmas that cancel) and compares the outputs bit for bit (docs/amd.md, check (b)).
 *
 * usage: compare_lowering DIR N SEED   (reads DIR/forms.txt: lines "index n name"; prints one line per form)
 * Build: gcc -O2 -o compare_lowering compare_lowering.c -I$CUDA_HOME/include -lcuda
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
static int f64;
static float fl(uint32_t u){float f; memcpy(&f,&u,4); return f;}
static uint32_t fu(float f){uint32_t u; memcpy(&u,&f,4); return u;}
static double dl(uint64_t u){double f; memcpy(&f,&u,8); return f;}
static uint64_t du(double f){uint64_t u; memcpy(&u,&f,8); return u;}
static uint64_t rnd64(uint64_t *s){ *s^=*s<<13; *s^=*s>>7; *s^=*s<<17; return *s; }
static uint64_t edge(uint64_t *s){
  uint64_t r=rnd64(s); int kind=r%16; uint64_t x=rnd64(s);
  if(!f64){
    uint32_t v=x; uint32_t sg=(r>>8&1)<<31;
    switch(kind){
      case 0: return sg|(v&0x7fffff);                         // subnormal
      case 1: return sg|((uint32_t)(1+(r>>16)%6)<<23)|(v&0x7fffff); // near min normal
      case 2: return sg|((uint32_t)(254-(r>>16)%4)<<23)|(v&0x7fffff); // near max
      case 3: return sg|0x7f800000|((r>>20&1)?(v&0x7fffff):0);
      case 4: return sg;
      case 5: return sg|((uint32_t)(127+(int)((r>>16)%9)-4)<<23)|(v&0xff); // few bits
      case 6: return sg|((uint32_t)(127+(int)((r>>16)%9)-4)<<23)|(0x7fffff - (v&0xff));
      case 7: return sg|((uint32_t)(60+(r>>16)%20)<<23)|(v&0x7fffff); // ~2^-60
      default: return v;
    }
  } else {
    uint64_t sg=(r>>8&1)<<63; uint64_t m=x&0xfffffffffffffULL;
    switch(kind){
      case 0: return sg|m;
      case 1: return sg|((uint64_t)(1+(r>>16)%60)<<52)|m;
      case 2: return sg|((uint64_t)(2046-(r>>16)%60)<<52)|m;
      case 3: return sg|0x7ff0000000000000ULL|((r>>20&1)?m:0);
      case 4: return sg;
      case 5: return sg|((uint64_t)(1023+(int)((r>>16)%9)-4)<<52)|(m&0xff);
      case 6: return sg|((uint64_t)(1023+(int)((r>>16)%9)-4)<<52)|(0xfffffffffffffULL-(m&0xff));
      case 7: return sg|((uint64_t)(400+(r>>16)%300)<<52)|m;
      case 8: return sg|((uint64_t)(1500+(r>>16)%500)<<52)|m;
      case 9: return sg|((uint64_t)(20+(r>>16)%80)<<52)|m;
      default: return x;
    }
  }
}

static char *slurp(const char *p){ FILE*f=fopen(p,"rb"); if(!f){perror(p);exit(1);} fseek(f,0,SEEK_END); long n=ftell(f); fseek(f,0,SEEK_SET); char*b=malloc(n+1); if(fread(b,1,n,f)!=(size_t)n){perror(p);exit(1);} b[n]=0; fclose(f); return b; }
#define CK(x) do{ CUresult r_=(x); if(r_){ const char*s; cuGetErrorName(r_,&s); printf("%s: %s\n", #x, s); return 1; } }while(0)
static int run(const char *ptx, CUdeviceptr din, CUdeviceptr dout, unsigned n, char *log){
  CUmodule m; CUfunction fn; CUjit_option o[]={CU_JIT_ERROR_LOG_BUFFER,CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES}; void*v[]={log,(void*)(size_t)4096};
  CUresult r=cuModuleLoadDataEx(&m,ptx,2,o,v); if(r) return r;
  if((r=cuModuleGetFunction(&fn,m,"k"))) return r;
  void*args[]={&din,&dout,&n};
  if((r=cuLaunchKernel(fn,(n+127)/128,1,1,128,1,1,0,0,args,0))) return r;
  r=cuCtxSynchronize(); cuModuleUnload(m); return r;
}
int main(int argc,char**argv){
  const char*dir=argv[1]; long N=atol(argv[2]); uint64_t seed=strtoull(argv[3],0,0);
  CUdevice dev; CUcontext ctx; CK(cuInit(0)); CK(cuDeviceGet(&dev,0)); CK(cuCtxCreate(&ctx,NULL,0,dev));
  uint64_t *in=malloc(N*32), *o1=malloc(N*16), *o2=malloc(N*16);
  CUdeviceptr din,dout; CK(cuMemAlloc(&din,N*32)); CK(cuMemAlloc(&dout,N*16));
  char path[4096], name[256]; int idx; long total=0, totbad=0; int forms=0, badforms=0;
  snprintf(path,sizeof path,"%s/forms.txt",dir); FILE*l=fopen(path,"r"); int cnt;
  if(!l){ perror(path); return 1; }
  while(fscanf(l,"%d %d %255s",&idx,&cnt,name)==3){
    f64=strstr(name,".f64")!=NULL;
    char op[16]; strncpy(op,name,15); op[15]=0; *strchr(op,'.')=0;
    int nin=(!strcmp(op,"fma")||!strcmp(op,"mad"))?3:(!strcmp(op,"rcp")||!strcmp(op,"sqrt"))?1:2;
    uint64_t s=seed^((uint64_t)idx*0x9E3779B97F4A7C15ULL); if(!s) s=1;
    for(long i=0;i<N;i++){ for(int j=0;j<4;j++) in[i*4+j]=0; for(int j=0;j<nin;j++) in[i*4+j]=edge(&s);
      if(nin>=2 && (rnd64(&s)%8)==0) in[i*4+1]= in[i*4] ^ (f64?0x8000000000000000ULL:0x80000000ULL) ^ (rnd64(&s)%4);
      if(nin==3 && (rnd64(&s)%3)==0){
        if(f64){ double pr=dl(in[i*4])*dl(in[i*4+1]); in[i*4+2]=du(-pr)+(int)(rnd64(&s)%5)-2; }
        else { float pr=fl(in[i*4])*fl(in[i*4+1]); in[i*4+2]=(uint32_t)(fu(-pr)+(int)(rnd64(&s)%5)-2); } } }
    CK(cuMemcpyHtoD(din,in,N*32)); char log[4096]={0};
    snprintf(path,sizeof path,"%s/native/%04d.ptx",dir,idx); char*p1=slurp(path);
    snprintf(path,sizeof path,"%s/ptx/%04d.ptx",dir,idx); char*p2=slurp(path);
    CK(cuMemsetD8(dout,0,N*16)); int r1=run(p1,din,dout,N,log); CK(cuMemcpyDtoH(o1,dout,N*16));
    CK(cuMemsetD8(dout,0,N*16)); int r2=run(p2,din,dout,N,log); CK(cuMemcpyDtoH(o2,dout,N*16));
    free(p1); free(p2);
    long bad=0;
    for(long i=0;i<N;i++) if(o1[i*2]!=o2[i*2]||o1[i*2+1]!=o2[i*2+1]){ if(bad<8) printf("  %s: in %016lx %016lx %016lx native %016lx lowered %016lx\n",name,in[i*4],in[i*4+1],in[i*4+2],o1[i*2],o2[i*2]); bad++; }
    printf("%s: %ld of %ld differ (native rc %d, lowered rc %d)\n",name,bad,N,r1,r2); fflush(stdout);
    forms++; total+=N; totbad+=bad; if(bad||r1||r2) badforms++;
  }
  printf("ALL: %d forms, %ld tuples, %ld differ, %d forms not bit-exact\n",forms,total,totbad,badforms);
  return 0;
}
