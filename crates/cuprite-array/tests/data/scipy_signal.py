"""Writes `scipy-signal.txt`, the reference values of `tests/signal_more.rs` and
`tests/signal_poles.rs`: one line a value list, `name kind values...` (kind `f`: reals, `i`:
integers, `c`: complex values as real and imaginary parts in turn). Run from this folder with
SciPy 1.17.1: `python3 scipy_signal.py > scipy-signal.txt`. The inputs are formulas that the
Rust tests evaluate the same way."""
import numpy as np, scipy.signal as s
out=[]
def arr(name, v, ty='f64'):
    v=np.asarray(v).ravel()
    if np.iscomplexobj(v):
        body=" ".join(f"{float(z.real)!r} {float(z.imag)!r}" for z in v.astype(complex))
        out.append(f"{name} c {body}")
    elif ty=='i64':
        out.append(f"{name} i " + " ".join(str(int(z)) for z in v))
    else:
        out.append(f"{name} f " + " ".join(repr(float(z)) for z in v))
# A 5x6, K 3x4, K2 7x9 by formula
A=np.array([[np.sin(0.9*i+1.7*j)+0.1*i for j in range(6)] for i in range(5)])
K=np.array([[np.cos(1.1*i-0.6*j)+0.2*j for j in range(4)] for i in range(3)])
K2=np.array([[np.sin(0.3*i*j+0.5) for j in range(9)] for i in range(7)])
for fn,nm in [(s.convolve2d,'conv2d'),(s.correlate2d,'corr2d')]:
    for mode in ['full','same','valid']:
        for bnd,fv,bn in [('fill',0,'fill0'),('fill',1.5,'fill15'),('wrap',0,'wrap'),('symm',0,'symm')]:
            if mode=='valid' and bn!='fill0': continue
            arr(f"{nm}_{mode}_{bn}", fn(A,K,mode,bnd,fv))
    for mode in ['full','same']:
        for bnd in ['wrap','symm']:
            arr(f"{nm}_big_{mode}_{bnd}", fn(A,K2,mode,bnd))
    arr(f"{nm}_valid_swapped", fn(K,A,'valid'))
# argrel
x=np.array([np.round(3*np.sin(1.3*i)+np.cos(0.4*i*i)) for i in range(30)])
for comp,cn in [(np.less,'less'),(np.greater,'greater'),(np.less_equal,'le'),(np.greater_equal,'ge')]:
    for order in [1,2,3]:
        for mode in ['clip','wrap']:
            arr(f"argrel_{cn}_{order}_{mode}", s.argrelextrema(x,comp,order=order,mode=mode)[0],'i64')
X2=np.array([[np.round(2*np.sin(0.7*i+1.1*j*j)) for j in range(7)] for i in range(6)])
for ax in [0,1]:
    r=s.argrelmax(X2,axis=ax,order=1)
    arr(f"argrel2_max_ax{ax}_rows", r[0],'i64'); arr(f"argrel2_max_ax{ax}_cols", r[1],'i64')
# deconvolve / lfiltic / sosfilt_zi
sig=np.array([np.sin(0.5*i)+1 for i in range(9)]); dv=np.array([2.0,-0.5,0.25])
q,r=s.deconvolve(sig,dv); arr('deconv_q',q); arr('deconv_r',r)
b=[0.2,0.3,-0.1,0.05]; a=[1.5,-0.4,0.2]
arr('lfiltic_y',s.lfiltic(b,a,[0.7,-0.2,0.4]))
arr('lfiltic_yx',s.lfiltic(b,a,[0.7],[1.0,-2.0,0.5,9.0]))
sos=s.ellip(5,1,40,[0.2,0.45],'bandpass',output='sos')
arr('sos_ellip', sos); arr('sosfilt_zi_ellip', s.sosfilt_zi(sos))
# hilbert2
H=np.array([[[np.sin(0.3*i+0.8*j+k)+0.2*i*j for j in range(5)] for i in range(4)] for k in range(2)])
arr('hilbert2_0', s.hilbert2(H[0])); arr('hilbert2_1', s.hilbert2(H[1]))
arr('hilbert2_pad', s.hilbert2(H[0],(6,3)))
# sweep_poly
t=np.linspace(-1,3,17)
arr('sweep_poly', s.sweep_poly(t,[0.05,-0.3,1.2,2.0],30.0))
# cola/nola
res=[]
for w,n,o in [('hann',256,128),('hann',256,100),('hamming',128,64),('boxcar',64,0),('blackman',300,200),('hann',255,170),('triang',100,50),('bartlett',100,50)]:
    res.append(int(s.check_COLA(w,n,o))); res.append(int(s.check_NOLA(w,n,o)))
arr('cola_nola', res,'i64')
# vectorstrength
ev=np.array([0.37*i+0.05*np.sin(2.3*i) for i in range(60)])
st,ph=s.vectorstrength(ev,[0.37,0.5,1.11,0.74]); arr('vs_strength',st); arr('vs_phase',ph)
# B-splines
bx=np.array([np.sin(0.8*i)+0.05*i*i for i in range(12)])
arr('cspline_0', s.cspline1d(bx))
arr('qspline_0', s.qspline1d(bx))
arr('cspline_smooth_05', s.cspline1d(bx,0.5))
arr('cspline_smooth_3', s.cspline1d(bx,3.0))
pts=np.array([-4.7,-0.3,0.0,0.5,1.25,3.999,7.5,10.9,11.0,12.6,25.1])
arr('cspline_eval', s.cspline1d_eval(s.cspline1d(bx),pts))
arr('cspline_eval_dx', s.cspline1d_eval(s.cspline1d(bx),pts,dx=0.5,x0=-1.0))
arr('qspline_eval', s.qspline1d_eval(s.qspline1d(bx),pts))
arr('gauss_spline', s.gauss_spline(pts,3))
# order_filter
OA=np.array([[np.round(5*np.sin(1.7*i+0.6*j*j)) for j in range(7)] for i in range(6)])
cross=np.array([[0,1,0],[1,1,1],[0,1,0]])
arr('order_cross_0', s.order_filter(OA,cross,0))
arr('order_cross_2', s.order_filter(OA,cross,2))
arr('order_box35_7', s.order_filter(OA,np.ones((3,5)),7))
# linear systems
A=np.array([[-0.5,1.2,0.0],[-1.0,-0.3,0.4],[0.2,0.0,-1.1]]); B=np.array([[1.0,0.0],[0.5,-1.0],[0.0,2.0]])
C=np.array([[1.0,0.0,-0.5],[0.3,1.0,0.0]]); D=np.array([[0.0,0.1],[0.0,0.0]])
tt=np.arange(25)*0.2
U=np.stack([np.sin(1.3*tt), np.cos(0.7*tt)+0.5],axis=1)
x0=np.array([0.2,-0.1,0.3])
_,y,x=s.lsim((A,B,C,D),U,tt,X0=x0,interp=True); arr('lsim_foh_y',y); arr('lsim_foh_x',x)
_,y,x=s.lsim((A,B,C,D),U,tt,X0=x0,interp=False); arr('lsim_zoh_y',y); arr('lsim_zoh_x',x)
Ad=np.array([[0.6,0.2,0.0],[-0.3,0.5,0.1],[0.0,0.4,-0.2]])
_,y,x=s.dlsim((Ad,B,C,D,0.1),U,x0=x0); arr('dlsim_y',y); arr('dlsim_x',x)
_,yi=s.dimpulse((Ad,B,C,D,0.1),n=12); arr('dimpulse_0',yi[0]); arr('dimpulse_1',yi[1])
_,ys=s.dstep((Ad,B,C,D,0.1),n=12); arr('dstep_0',ys[0]); arr('dstep_1',ys[1])
num=[0.5,2.0,1.0]; den=[1.0,0.8,2.5,0.6]
t_i,y_i=s.impulse((num,den),N=30); arr('impulse_t',t_i); arr('impulse_y',y_i)
t_s,y_s=s.step((num,den),X0=[0.1,0.0,-0.2],N=30); arr('step_y',y_s)
ww=np.array([0.05,0.3,1.0,1.6,2.2,5.0,20.0])
_,h=s.freqresp((num,den),ww); arr('freqresp',h)
_,mag,ph=s.bode((num,den),ww); arr('bode_mag',mag); arr('bode_phase',ph)
dnum=[0.2,0.1]; dden=[1.0,-1.1,0.5]
wd=np.array([0.1,0.5,1.0,2.0,2.9,3.1])
_,hd=s.dfreqresp((dnum,dden,0.05),wd); arr('dfreqresp',hd)
wo,magd,phd=s.dbode((dnum,dden,0.05),wd); arr('dbode_w',wo); arr('dbode_mag',magd); arr('dbode_phase',phd)
# symmetric IIR filters and 2-D splines
sx=np.array([np.sin(0.45*i)+0.2*np.cos(1.9*i) for i in range(30)])
arr('symiir1', s.symiirorder1(sx, 0.5, 0.1))
arr('symiir1_p', s.symiirorder1(sx, 0.8, -0.6, 1e-5))
S2=np.stack([sx, np.cos(0.3*np.arange(30.0))])
arr('symiir1_rows', s.symiirorder1(S2, 0.5, 0.1))
arr('symiir2', s.symiirorder2(sx, 0.5, 0.7, 1e-7))
arr('symiir2_default', s.symiirorder2(sx, 0.3, 1.2))
IM=np.array([[np.sin(0.5*i+0.3*j)+0.05*i*j for j in range(22)] for i in range(20)])
arr('cspline2d', s.cspline2d(IM, 0.0, 1e-10))
arr('cspline2d_default', s.cspline2d(IM))
arr('cspline2d_smooth', s.cspline2d(IM, 2.0, 1e-4))
arr('qspline2d', s.qspline2d(IM, 0.0, 1e-10))
IM2=np.array([[np.cos(0.2*i-0.35*j)+0.01*i for j in range(40)] for i in range(36)])
arr('spline_filter', s.spline_filter(IM2, 5.0))
arr('sepfir2d', s.sepfir2d(IM, np.array([0.1,0.2,0.4,-0.3,0.6]), np.array([0.5,1.0,-0.3])))
# IIR designs as second-order sections
arr('sos_butter_5_hp', s.butter(5, 0.2, 'highpass', output='sos'))
arr('sos_butter_4_bs', s.butter(4, [0.1, 0.3], 'bandstop', output='sos'))
arr('sos_cheby1_7_lp', s.cheby1(7, 0.5, 0.35, output='sos'))
arr('sos_cheby2_6_bp', s.cheby2(6, 60, [0.2, 0.5], 'bandpass', output='sos'))
arr('sos_ellip_7_hp', s.ellip(7, 0.1, 80, 0.3, 'highpass', output='sos'))
arr('sos_bessel_3_bp', s.bessel(3, [0.1, 0.2], 'bandpass', norm='phase', output='sos'))
# iirfilter, iirdesign, band_stop_obj
z,p_,k=s.iirfilter(4,[0.2,0.45],rp=0.5,rs=50,btype='bandstop',ftype='ellip',output='zpk')
arr('iirfilter_ellip_bs_ba', np.concatenate(s.zpk2tf(z,p_,k)))
b_,a_=s.iirfilter(3,[2.0,5.0],rp=1,btype='bandpass',analog=True,ftype='cheby1')
arr('iirfilter_cheby1_analog_b', b_); arr('iirfilter_cheby1_analog_a', a_)
for ft in ['butter','cheby1','cheby2','ellip']:
    b_,a_=s.iirdesign(0.2,0.3,1,40,ftype=ft); arr(f'iirdesign_{ft}_lp', np.concatenate([b_,a_]))
    b_,a_=s.iirdesign([0.2,0.5],[0.1,0.6],0.5,45,ftype=ft); arr(f'iirdesign_{ft}_bp', np.concatenate([b_,a_]))
b_,a_=s.iirdesign([0.1,0.6],[0.2,0.5],1,30,ftype='cheby2'); arr('iirdesign_cheby2_bs', np.concatenate([b_,a_]))
from scipy.signal._filter_design import band_stop_obj
pb=np.array([0.5,3.0]); sb=np.array([0.9,1.5])
arr('band_stop_obj', [band_stop_obj(wp,i,pb,sb,1.0,40.0,t) for t in ['butter','cheby','ellip'] for (wp,i) in [(0.4,0),(0.7,0),(2.0,1),(3.5,1)]])
# lti and dlti
sysc=s.lti([1.0,3.0],[1.0,2.0,5.0,4.0])
arr('lti_poles', np.sort_complex(sysc.poles)); arr('lti_zeros', sysc.zeros)
ss=sysc.to_ss(); arr('lti_ss_A', ss.A); arr('lti_ss_B', ss.B); arr('lti_ss_C', ss.C); arr('lti_ss_D', ss.D)
dz=sysc.to_discrete(0.1,'bilinear'); arr('lti_disc_bilinear', np.concatenate([dz.num,dz.den]))
dz=s.ZerosPolesGain([-3.0],[-1.0,-2.0],2.0).to_discrete(0.2)
arr('lti_zpk_disc_zoh_z', np.sort_complex(dz.zeros)); arr('lti_zpk_disc_zoh_p', np.sort_complex(dz.poles)); arr('lti_zpk_disc_zoh_k', [dz.gain])
tt,yy=sysc.impulse(T=np.linspace(0,5,26)); arr('lti_impulse', yy)
tt,yy=sysc.step(T=np.linspace(0,5,26)); arr('lti_step', yy)
uu=np.sin(np.linspace(0,5,26)); tt,yy,xx=sysc.output(uu,np.linspace(0,5,26)); arr('lti_output', yy)
w_,mag,ph=sysc.bode([0.1,1.0,3.0]); arr('lti_bode', np.concatenate([mag,ph]))
sysd=s.dlti([0.2,0.1],[1.0,-1.1,0.5],dt=0.05)
tt,yy=sysd.impulse(n=8); arr('dlti_impulse', yy[0])
tt,yy=sysd.step(n=8); arr('dlti_step', yy[0])
tt,yy=sysd.output(np.cos(np.arange(8.0)),None)[:2]; arr('dlti_output', yy)
w_,h_=sysd.freqresp([0.1,1.0,2.5]); arr('dlti_freqresp', h_)
# CZT and ZoomFFT objects
xc=np.array([np.sin(0.7*i)+0.3*np.cos(2.1*i) for i in range(12)])
arr('czt_obj', s.CZT(12,7,np.exp(-0.23j)*1.01,0.9*np.exp(0.4j))(xc))
arr('zoomfft_obj', s.ZoomFFT(12,[0.1,0.3],9,fs=1.0,endpoint=True)(xc))
# pole placement (tests/signal_poles.rs): gain, computed and requested poles, X, (rtol, nb_iter)
def ppmat(r, c, f): return np.array([[f(i, j) for j in range(c)] for i in range(r)], float)
def pp(name, A, B, P, **kw):
    r = s.place_poles(A, B, P, **kw)
    arr(f"pp_{name}_k", r.gain_matrix); arr(f"pp_{name}_cp", np.asarray(r.computed_poles, complex))
    arr(f"pp_{name}_rp", np.asarray(r.requested_poles, complex)); arr(f"pp_{name}_x", np.asarray(r.X, complex))
    arr(f"pp_{name}_info", [r.rtol, r.nb_iter])
A1 = np.array([[1.380, -0.2077, 6.715, -5.676], [-0.5814, -4.290, 0, 0.6750],
               [1.067, 4.273, -6.654, 5.893], [0.0480, 4.273, 1.343, -2.104]])
B1 = np.array([[0, 5.679], [1.136, 1.136], [0, 0], [-3.146, 0]])
P1 = np.array([-0.2, -0.5, -5.0566, -8.6659])
pp('ex1_knv0', A1, B1, P1, method='KNV0')
pp('ex1_yt', A1, B1, P1)
pp('ex1_yt100', A1, B1, P1, rtol=-1, maxiter=100)
A2 = np.array([[0, 7/3., 0, 0], [0, 0, 0, 7/9.], [0, 0, 0, 0], [0, 0, 0, 0]])
B2 = np.array([[0, 0], [0, 0], [1, 0], [0, 1]])
pp('ex2_yt', A2, B2, np.array([-3, -1, -2-1j, -2+1j]) / 3.)
A3 = ppmat(3, 3, lambda i, j: np.sin(0.7*i + 1.3*j) + 0.1*(i - j))
B3 = ppmat(3, 1, lambda i, j: np.cos(0.9*i + 0.3))
pp('si_yt', A3, B3, [-1, -2+1j, -2-1j])
pp('si_knv0', A3, B3, [-3, -1, -2], method='KNV0')
B4 = ppmat(3, 3, lambda i, j: np.cos(0.9*i - 0.4*j) + (i == j))
pp('fr_yt', A3, B4, [-2+3j, -1, -2-3j])
A4w = np.array([[0.5, -1.0], [2.0, 0.25]]); B4w = ppmat(2, 3, lambda i, j: np.sin(1.1*i + 0.7*j + 0.2))
pp('fr_wide', A4w, B4w, [-4, -1])
A5 = ppmat(4, 4, lambda i, j: np.cos(0.8*i*j + 0.4) - 0.2*i)
B5 = ppmat(4, 2, lambda i, j: np.sin(0.6*i - 1.2*j + 0.5))
pp('rep_yt', A5, B5, [-1, -1, -2, -2])
pp('rep_knv0', A5, B5, [-1, -2, -1, -2], method='KNV0')
pp('rep_cplx', A5, B5, [-1+1j, -1-1j, -1+1j, -1-1j])
A6 = ppmat(6, 6, lambda i, j: np.sin(0.5*i + 0.9*j*j) + 0.05*i*j)
B6 = ppmat(6, 3, lambda i, j: np.cos(1.3*i + 0.4*j) + 0.3*(i == 2*j))
P6 = [-0.5, -1, -1.5, -2, -3, -4]
pp('six_yt', A6, B6, P6)
pp('six_knv0', A6, B6, P6, method='KNV0')
A7 = ppmat(7, 7, lambda i, j: np.cos(2.1*i*j + 0.3*i - 0.5*j))
B7 = ppmat(7, 3, lambda i, j: np.sin(0.9*i + 1.7*j + 0.1) + 0.2*i*j)
pp('seven_yt', A7, B7, [-1, -2, -3, -4, -5, -1+2j, -1-2j])
pp('seven_real', A7, B7, [-1, -2, -3, -4, -5, -6, -7])
A8 = ppmat(5, 5, lambda i, j: np.sin(1.1*i - 0.3*j + 0.2*i*j))
B8 = ppmat(5, 2, lambda i, j: np.cos(0.7*i + 2.1*j))
pp('lone_yt', A8, B8, [-1, -2+1j, -2-1j, -3+2j, -3-2j])
# abcd_normalize: each matrix's shape, then its entries
def abcd(name, **kw):
    m = s.abcd_normalize(**kw)
    arr(f"abcd_{name}", np.concatenate([[float(v) for x in m for v in x.shape]] + [np.ravel(x).astype(float) for x in m]))
abcd('doc', A=[[1, 2], [3, 4]], B=[[-1], [5]], D=2.5)
abcd('empty_a', A=np.zeros((0, 3)), B=[[-1], [5]], C=[[1, 2], [3, 4], [5, 6]])
abcd('bc', B=[[-1, 2], [5, 3], [1, 1]], C=[[1, 2, 3]])
# BadCoefficients: whether normalize warns, and the numerator's length after it
import warnings
bc=[]
for b_,a_ in [([1.0,2.0],[2.0,1.0]),([1e-15,2.0,4.0],[1.0,2.0,1.0]),([0.0,0.0,3.0],[0.0,4.0,1.0]),([2e-14,1.0],[4.0]),([0.0,1e-16],[1.0]),([1e-13,1.0],[1.0,3.0])]:
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always'); nb_,_=s.normalize(b_,a_)
    bc += [float(any(issubclass(w.category, s.BadCoefficients) for w in ws)), float(len(nb_))]
arr('bad_coefficients', bc)
# get_window: the windows added later, symmetric and periodic, odd and even lengths
for wname,spec in [('bohman','bohman'),('parzen','parzen'),('lanczos','lanczos'),('barthann','barthann'),
                   ('general_hamming',('general_hamming',0.6)),('general_gaussian',('general_gaussian',1.5,2.0)),
                   ('chebwin',('chebwin',60)),('chebwin40',('chebwin',40)),('taylor','taylor'),
                   ('taylor_3_25_raw',None)]:
    for m in [1,2,7,8,16]:
        for fft in [False,True]:
            if spec is None:
                v=s.windows.taylor(m,3,25,norm=False,sym=not fft)
            else:
                v=s.get_window(spec,m,fftbins=fft)
            arr(f"win_{wname}_{m}_{'p' if fft else 's'}", v)
for m in [2,8,16]:
    for beta in [4.0, 8.6]:
        arr(f"win_kbd_{m}_{beta}", s.windows.kaiser_bessel_derived(m, beta))
# upfirdn's extension modes (a filter reaching past a short signal reflects it more than once);
# resample_poly's padtypes
xu=np.array([np.sin(0.7*i)+0.05*i*i for i in range(7)])
hu=np.array([np.cos(0.4*i)+0.1 for i in range(9)])
for mode in ['constant','symmetric','reflect','edge','wrap','smooth','antisymmetric','antireflect','line']:
    cv=1.5 if mode=='constant' else 0
    for up,down in [(1,1),(2,1),(1,3),(3,2)]:
        arr(f"upfirdn_{mode}_{up}_{down}", s.upfirdn(hu,xu,up,down,mode=mode,cval=cv))
    arr(f"upfirdn_short_{mode}", s.upfirdn(hu,xu[:3],1,2,mode=mode,cval=cv))
    arr(f"upfirdn_axis0_{mode}", s.upfirdn(hu[:4],np.stack([xu,-2*xu],1),2,3,axis=0,mode=mode,cval=cv))
xr=np.array([np.cos(0.3*i)+0.02*i for i in range(40)])
for pt in ['constant','symmetric','reflect','edge','wrap','smooth','antisymmetric','antireflect','line','mean','median','minimum','maximum']:
    arr(f"rpoly_{pt}", s.resample_poly(xr,3,2,padtype=pt))
arr("rpoly_constant_cval", s.resample_poly(xr,3,2,padtype='constant',cval=2.5))
# resample with a spectral window: named (odd and even lengths), values, up and down
for nx,num in [(16,24),(15,10),(9,9)]:
    xs=np.array([np.sin(0.5*i)+0.1*i for i in range(nx)])
    for wn,w in [('hann','hann'),('kaiser',('kaiser',6.0))]:
        arr(f"resample_win_{wn}_{nx}_{num}", s.resample(xs,num,window=w))
    wv=np.array([1.0/(1.0+0.2*abs(f)*nx) for f in np.fft.fftfreq(nx)])
    arr(f"resample_winv_{nx}_{num}", s.resample(xs,num,window=wv))
# dpss: lengths odd and even, symmetric and periodic, each norm, the ratios; general_cosine
import scipy.signal.windows as sw
for m,nw,k in [(16,2.5,4),(33,3.0,5),(64,4.0,7),(7,1.5,3),(200,3.5,6)]:
    for sym in [True,False]:
        tag=f"{m}_{nw}_{k}_{'s' if sym else 'p'}"
        arr(f"dpss_{tag}", sw.dpss(m,nw,k,sym=sym))
        arr(f"dpss_one_{tag}", sw.dpss(m,nw,sym=sym))
        for nm in ['approximate','subsample']:
            arr(f"dpss_{nm}_{tag}", sw.dpss(m,nw,k,sym=sym,norm=nm))
        arr(f"dpss_ratios_{tag}", sw.dpss(m,nw,k,sym=sym,return_ratios=True)[1])
for m in [1,2,9,10]:
    for sym in [True,False]:
        arr(f"gcos_{m}_{'s' if sym else 'p'}", sw.general_cosine(m,[0.3,0.45,0.2,0.05],sym=sym))
# filtfilt by Gustafsson's method: the filters (b then a) and the results, whole signal and
# ends only (irlen), along the first axis of a 2-D signal, and a signal shorter than 2 x order
gx=np.array([np.sin(0.37*i)+0.3*np.cos(1.9*i)+0.01*i for i in range(50)])
gfilters={'butter3':s.butter(3,0.2),'cheby4':s.cheby1(4,1.0,0.3),'fir3':(np.array([0.2,0.3,0.5]),np.array([1.0]))}
for nm,(gb,ga) in gfilters.items():
    arr(f"gust_b_{nm}", gb); arr(f"gust_a_{nm}", ga)
    for irl in [None,10,30]:
        arr(f"gust_{nm}_{irl}", s.filtfilt(gb,ga,gx,method='gust',irlen=irl))
gb,ga=gfilters['cheby4']
g2=np.stack([gx[:40],np.cos(0.2*np.arange(40)),-gx[10:50]],1)
arr("gust_cheby4_axis0", s.filtfilt(gb,ga,g2,axis=0,method='gust'))
arr("gust_cheby4_axis0_irlen8", s.filtfilt(gb,ga,g2,axis=0,method='gust',irlen=8))
arr("gust_cheby4_short", s.filtfilt(gb,ga,gx[:5],method='gust'))
# the spectral routines of complex signals (two-sided): welch (mean, median, linear detrend),
# periodogram, csd with a real and a complex partner, coherence, spectrogram modes, stft
import warnings as _w
zc=np.array([np.cos(0.4*i)+0.3*np.sin(1.3*i)+1j*(np.sin(0.7*i)-0.2*np.cos(2.1*i))+0.01*i for i in range(200)])
yr=np.array([np.sin(0.45*i)+0.1*np.cos(0.05*i*i) for i in range(200)])
with _w.catch_warnings():
    _w.simplefilter('ignore')
    for av in ['mean','median']:
        f,pp=s.welch(zc,fs=2.0,nperseg=32,average=av); arr(f"cx_welch_{av}", pp); arr(f"cx_welch_{av}_f", f)
    f,pp=s.welch(zc,nperseg=40,noverlap=10,detrend='linear',window='hamming',scaling='spectrum'); arr("cx_welch_lin", pp)
    f,pp=s.periodogram(zc[:64]); arr("cx_periodogram", pp); arr("cx_periodogram_f", f)
    f,pp=s.csd(zc,yr,nperseg=32); arr("cx_csd_real", pp)
    f,pp=s.csd(zc,zc*np.exp(0.3j)+yr,nperseg=32,average='median'); arr("cx_csd_both_median", pp)
    f,pp=s.coherence(zc,zc+yr,nperseg=32); arr("cx_coherence", pp)
    for mode in ['psd','magnitude','angle','phase']:
        f,t,ss=s.spectrogram(zc,nperseg=24,mode=mode); arr(f"cx_spec_{mode}", ss)
    f,t,ss=s.stft(zc,nperseg=20); arr("cx_stft", ss); arr("cx_stft_f", f); arr("cx_stft_t", t)
print("\n".join(out))
