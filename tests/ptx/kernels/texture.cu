// Texture and surface objects: every geometry nvcc emits for the object API.
extern "C" __global__ void fetch1d(cudaTextureObject_t t, float* out) {
  int i = threadIdx.x;
  out[i * 3 + 0] = tex1Dfetch<float>(t, i - 2);  // integer index, outside at both ends
  out[i * 3 + 1] = tex1D<float>(t, i * 0.25f);   // float coordinate
  out[i * 3 + 2] = tex1D<float>(t, i * 0.3f - 1.0f);
}

extern "C" __global__ void sample2d(cudaTextureObject_t t, float* out, float sx, float sy) {
  int i = threadIdx.x;
  float4 v = tex2D<float4>(t, i * sx, i * sy);
  out[i * 8 + 0] = v.x;
  out[i * 8 + 1] = v.y;
  out[i * 8 + 2] = v.z;
  out[i * 8 + 3] = v.w;
  float4 g = tex2Dgather<float4>(t, i * sx, i * sy, 1);  // green channel footprint
  out[i * 8 + 4] = g.x;
  out[i * 8 + 5] = g.y;
  out[i * 8 + 6] = g.z;
  out[i * 8 + 7] = g.w;
}

extern "C" __global__ void sample3d_layered(cudaTextureObject_t t3, cudaTextureObject_t tl, float* out) {
  int i = threadIdx.x;
  out[i * 2 + 0] = tex3D<float>(t3, i * 0.37f, 1.2f, 0.9f);
  out[i * 2 + 1] = tex2DLayered<float>(tl, i * 0.5f, 1.5f, i % 3);
}

extern "C" __global__ void bytes(cudaTextureObject_t elements, cudaTextureObject_t normalized, unsigned* raw,
                                 float* norm) {
  int i = threadIdx.x;
  uchar4 c = tex2D<uchar4>(elements, i + 0.5f, 0.5f);
  raw[i * 4 + 0] = c.x;
  raw[i * 4 + 1] = c.y;
  raw[i * 4 + 2] = c.z;
  raw[i * 4 + 3] = c.w;
  float4 f = tex2D<float4>(normalized, i + 0.5f, 0.5f);
  norm[i * 4 + 0] = f.x;
  norm[i * 4 + 1] = f.y;
  norm[i * 4 + 2] = f.z;
  norm[i * 4 + 3] = f.w;
}

extern "C" __global__ void surfaces(cudaSurfaceObject_t s, int* sizes) {
  int x = threadIdx.x, y = blockIdx.x;
  int v;
  surf2Dread(&v, s, x * 4, y);
  surf2Dwrite(v * 10 + y, s, x * 4, y);
  if (x == 0 && y == 0) {
    unsigned w, h;
    asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(s));
    asm("txq.height.b32 %0, [%1];" : "=r"(h) : "l"(s));
    sizes[0] = w;
    sizes[1] = h;
  }
}

extern "C" __global__ void surface_oob(cudaSurfaceObject_t s, int* out) {
  int v;
  surf2Dread(&v, s, threadIdx.x * 4, 0);  // beyond the width for the last threads
  out[threadIdx.x] = v;
}
